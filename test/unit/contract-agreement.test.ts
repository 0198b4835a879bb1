import { describe, expect, test } from '@jest/globals';
import spec from '../../src/generated/openapi.json' with { type: 'json' };
import { ERROR_CODES as CONTRACT_ERROR_CODES } from '../../src/generated/contract-values.js';
import { MAX_ATTACHMENT_BYTES, SUPPORTED_TYPES } from '../../src/domain/attachments/limits.js';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { ERROR_TABLE } from '../../src/http/error-table.js';

// Figures the service keeps in code and the contract states to users: they must not drift apart.

describe('the contract and the code agree', () => {
  test('attachments: the per-file maximum, the supported types and the count', () => {
    const multipart = spec.paths['/api/v1/dev/query-multipart'].post.requestBody.content['multipart/form-data'];
    expect(multipart.encoding.files['x-max-bytes']).toBe(MAX_ATTACHMENT_BYTES);
    expect(String(multipart.encoding.files.contentType).split(/,\s*/)).toEqual([...SUPPORTED_TYPES]);
    const schemas = spec.components.schemas;
    expect(schemas.QueryRequest.properties.attachments.maxItems).toBe(schemas.QueryMultipartRequest.properties.files.maxItems);
  });

  test('the {error} codes of the error table are exactly the codes the contract documents', () => {
    const errorShaped = ERROR_CODES.filter((code) => ERROR_TABLE[code].shape === 'error');
    expect(new Set(errorShaped)).toEqual(new Set(CONTRACT_ERROR_CODES));
  });
});
