import { describe, expect, test } from '@jest/globals';
import { ConfigError, docsSettings, keyHashSecret, loadConfig } from '../../src/config.js';

const valid = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', KEY_HASH_SECRET: 'x'.repeat(32) };

describe('configuration', () => {
  test('defaults apply when only the required settings are given', () => {
    expect(loadConfig(valid)).toMatchObject({ PORT: 8000, HOST: '127.0.0.1', API_ENVIRONMENT: 'live', LOG_LEVEL: 'info', TRUST_PROXY: false, DB_POOL_MAX: 20 });
  });

  test('the key secret is needed only by programs that handle keys', () => {
    const config = loadConfig({ DATABASE_URL: valid.DATABASE_URL });
    expect(() => keyHashSecret(config)).toThrow('KEY_HASH_SECRET: required');
    expect(keyHashSecret(loadConfig(valid))).toBe(valid.KEY_HASH_SECRET);
  });

  test('model prices are a JSON table per public model', () => {
    expect(loadConfig(valid).MODEL_PRICES_USD['svcai-fast']).toEqual({ input: 0.15, output: 0.6 });
    expect(() => loadConfig({ ...valid, MODEL_PRICES_USD: '{"svcai-fast":1}' })).toThrow('MODEL_PRICES_USD: must be JSON like');
  });

  test('the docs site listens beside the API and links to the addresses it is given', () => {
    expect(docsSettings(loadConfig(valid))).toEqual({
      host: '127.0.0.1',
      port: 8001,
      docsBaseUrl: 'http://127.0.0.1:8001',
      apiBaseUrl: 'http://127.0.0.1:8000',
    });
    const behindProxy = loadConfig({ ...valid, HOST: '::1', DOCS_PORT: '9002', DOCS_BASE_URL: 'https://docs.svcai.lk/', API_BASE_URL: 'https://api.svcai.lk' });
    expect(docsSettings(behindProxy)).toEqual({ host: '::1', port: 9002, docsBaseUrl: 'https://docs.svcai.lk', apiBaseUrl: 'https://api.svcai.lk' });
    expect(docsSettings(loadConfig({ ...valid, HOST: '::1' })).apiBaseUrl).toBe('http://[::1]:8000');
    expect(() => loadConfig({ ...valid, DOCS_BASE_URL: 'docs.svcai.lk' })).toThrow('DOCS_BASE_URL: must be an http(s) URL');
  });

  test('an empty variable means not set', () => {
    const config = loadConfig({ ...valid, OPENAI_API_KEY: '', PORT: '' });
    expect(config.OPENAI_API_KEY).toBeUndefined();
    expect(config.PORT).toBe(8000);
  });

  test('embeddings have their own endpoint; without one retrieval is BM25 only, and the former setting is refused', () => {
    expect(loadConfig(valid).EMBEDDINGS_BASE_URL).toBeUndefined();
    expect(loadConfig(valid).EMBEDDINGS_MODEL).toBe('multilingual-e5-small');
    expect(loadConfig({ ...valid, EMBEDDINGS_BASE_URL: 'http://127.0.0.1:18100/v1', EMBEDDINGS_MODEL: 'e5' })).toMatchObject({
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:18100/v1',
      EMBEDDINGS_MODEL: 'e5',
    });
    expect(() => loadConfig({ ...valid, OPENAI_EMBEDDING_MODEL: 'text-embedding-3-small' })).toThrow(
      'OPENAI_EMBEDDING_MODEL: no longer read: embeddings have their own endpoint, set EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL',
    );
  });

  test('values are parsed', () => {
    expect(loadConfig({ ...valid, PORT: '9001', API_ENVIRONMENT: 'test', TRUST_PROXY: 'true' })).toMatchObject({ PORT: 9001, API_ENVIRONMENT: 'test', TRUST_PROXY: true });
  });

  test.each([
    [{ KEY_HASH_SECRET: 'x'.repeat(32) }, 'DATABASE_URL'],
    [{ ...valid, WEAVIATE_URL: 'grpc://x' }, 'WEAVIATE_URL'],
    [{ ...valid, DATABASE_URL: 'mysql://x' }, 'DATABASE_URL: must be a postgres'],
    [{ ...valid, KEY_HASH_SECRET: 'short' }, 'KEY_HASH_SECRET: must be at least 32'],
    [{ ...valid, PORT: '70000' }, 'PORT'],
    [{ ...valid, API_ENVIRONMENT: 'prod' }, 'API_ENVIRONMENT'],
    [{ ...valid, TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ ...valid, EMBEDDINGS_BASE_URL: '127.0.0.1:18100' }, 'EMBEDDINGS_BASE_URL: must be an http(s) URL'],
  ])('invalid settings name the variable (%#)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
