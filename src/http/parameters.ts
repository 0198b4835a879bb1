import type { Context } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import type { ValidateFunction } from 'ajv';
import * as validators from '../generated/parameter-validators.js';
import { InvalidRequestError } from '../domain/errors.js';
import { checkWellFormed } from './body-checks.js';
import { pointerToken, shown } from './json-pointer.js';
import { invalidRequest } from './validation-message.js';

interface ParameterSpec {
  name: string;
  in: string;
}

export interface CheckedParameters {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** by lower-cased name */
  headers: Record<string, string | undefined>;
}

/**
 * The operation's path, query and header parameters, checked against the contract by its
 * generated validator (query values coerced to their declared types, defaults filled in), so a
 * handler never sees a parameter the contract would refuse. A query parameter the contract does
 * not declare is refused too, as unknown body fields are: a mistyped filter (`?stat=failed`) was
 * ignored, and the list answered everything.
 */
export function checkedParameters(c: OpenApiContext, ctx: Context): CheckedParameters {
  const declared = (c.operation.parameters ?? []) as ParameterSpec[];
  const result: CheckedParameters = { path: {}, query: {}, headers: {} };
  const values: Record<string, unknown> = {};
  const query = c.request.query as Record<string, string | string[] | undefined>;
  const taken = declared.filter((p) => p.in === 'query').map((p) => p.name);
  const unknown = Object.keys(query).find((name) => !taken.includes(name));
  if (unknown !== undefined) {
    throw new InvalidRequestError(`Unknown query parameter '${shown(unknown)}': this operation takes ${taken.length > 0 ? [...taken].sort().join(', ') : 'none'}.`, [
      { path: `/${pointerToken(shown(unknown))}`, message: 'unknown parameter' },
    ]);
  }
  const params = c.request.params as Record<string, string | undefined>;
  for (const parameter of declared) {
    if (parameter.in === 'path' && params[parameter.name] !== undefined) values[parameter.name] = params[parameter.name];
    if (parameter.in === 'query' && query[parameter.name] !== undefined) values[parameter.name] = query[parameter.name];
    if (parameter.in === 'header') {
      // a header sent empty is a value the contract may refuse, not an absent one
      const sent = ctx.headers[parameter.name.toLowerCase()];
      if (sent !== undefined) values[parameter.name.toLowerCase()] = Array.isArray(sent) ? sent.join(', ') : sent;
    }
  }
  const validate = (validators as unknown as Record<string, ValidateFunction | undefined>)[c.operation.operationId ?? ''];
  if (validate) {
    checkWellFormed(values);
    if (!validate(values)) throw invalidRequest(validate.errors ?? [], values, { parameters: true });
  }
  for (const parameter of declared) {
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    if (values[name] === undefined) continue;
    if (parameter.in === 'path') result.path[name] = values[name];
    else if (parameter.in === 'query') result.query[name] = values[name];
    else if (parameter.in === 'header') result.headers[name] = values[name] as string;
  }
  return result;
}
