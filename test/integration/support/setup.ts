import { afterAll, jest } from '@jest/globals';
import { stopAll } from './cleanup.js';
import { STARTUP_DEADLINE_MS, STOP_GRACE_MS } from './processes.js';

// Runs before every integration test file (setupFilesAfterEnv). Jest reads `testTimeout` only from
// the global configuration, not from a project's, hence here: every test and hook may take a
// startup (STARTUP_DEADLINE_MS) and then its own work, so a startup fails on its own deadline,
// with its stderr, before jest's timeout cuts it off.
jest.setTimeout(2 * STARTUP_DEADLINE_MS);

afterAll(stopAll, 6 * STOP_GRACE_MS);
