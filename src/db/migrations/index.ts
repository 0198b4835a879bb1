import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';

// Listed explicitly (no file globbing) so compiled and test runs load the same set in order.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
];
