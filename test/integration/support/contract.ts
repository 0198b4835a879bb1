import { OpenAPIBackend, SetMatchType, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import spec from '../../../src/generated/openapi.json' with { type: 'json' };

const api = new OpenAPIBackend({
  definition: spec as unknown as Document,
  quick: true,
  customizeAjv: (ajv) => {
    addFormats.default(ajv);
    return ajv;
  },
});
await api.init();

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Calls the server and returns status, headers and parsed JSON body. */
export async function call(url: string, init: RequestInit & { key?: string } = {}): Promise<ApiResponse> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('X-API-Key', init.key);
  const res = await fetch(url, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Fails unless the response matches what the OpenAPI description documents for this operation and status. */
export function expectDocumented(res: ApiResponse, operationId: string): void {
  const operation = api.getOperation(operationId);
  if (!operation) throw new Error(`unknown operation ${operationId}`);
  const documented = Object.keys(operation.responses ?? {});
  if (!documented.includes(String(res.status))) {
    throw new Error(`${operationId} answered ${res.status}, which is not documented (documented: ${documented.join(', ')})`);
  }
  const body = api.validateResponse(res.body, operation, res.status);
  if (body.errors) throw new Error(`${operationId} ${res.status} body does not match the contract: ${JSON.stringify(body.errors)}`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  // values of the headers present must match their schemas ...
  const headerCheck = api.validateResponseHeaders(headers, operation, { statusCode: res.status, setMatchType: SetMatchType.Any });
  if (headerCheck.errors) {
    throw new Error(`${operationId} ${res.status} headers do not match the contract: ${JSON.stringify(headerCheck.errors)}`);
  }
  // ... and every header documented as required must be there (openapi-backend's own
  // "superset" check treats every documented header as required)
  const documentedHeaders = (operation.responses?.[String(res.status)] as { headers?: Record<string, { required?: boolean }> }).headers ?? {};
  for (const [name, header] of Object.entries(documentedHeaders)) {
    if (header.required && !(name.toLowerCase() in headers)) throw new Error(`${operationId} ${res.status} lacks the required header ${name}`);
  }
}
