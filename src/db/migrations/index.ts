import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261121010000_stores } from './Migration20261121010000_stores.js';
import { Migration20261123000000_shared_stores } from './Migration20261123000000_shared_stores.js';
import { Migration20261123010000_admit_request } from './Migration20261123010000_admit_request.js';
import { Migration20261123100000_docs_requests } from './Migration20261123100000_docs_requests.js';
import { Migration20261123190000_key_expiry } from './Migration20261123190000_key_expiry.js';
import { Migration20261123200000_hot_path } from './Migration20261123200000_hot_path.js';
import { Migration20261123200000_dashboard_accounts } from './Migration20261123200000_dashboard_accounts.js';
import { Migration20261123210000_billing } from './Migration20261123210000_billing.js';
import { Migration20261123230000_request_timing } from './Migration20261123230000_request_timing.js';
import { Migration20261124000000_knowledge_bases } from './Migration20261124000000_knowledge_bases.js';
import { Migration20261124100000_webhooks } from './Migration20261124100000_webhooks.js';
import { Migration20261124200000_usage_by_endpoint } from './Migration20261124200000_usage_by_endpoint.js';
import { Migration20261124300000_window_reset } from './Migration20261124300000_window_reset.js';
import { Migration20261125000000_window_sequence } from './Migration20261125000000_window_sequence.js';
import { Migration20261126000000_usage_at_admission } from './Migration20261126000000_usage_at_admission.js';
import { Migration20261127000000_document_timings } from './Migration20261127000000_document_timings.js';
import { Migration20261128000000_counted_when_logged } from './Migration20261128000000_counted_when_logged.js';
import { Migration20261128100000_pending_deliveries_by_endpoint } from './Migration20261128100000_pending_deliveries_by_endpoint.js';
import { Migration20261128200000_document_chunks_to_remove } from './Migration20261128200000_document_chunks_to_remove.js';
import { Migration20261128210000_notification_dedupe_by_order } from './Migration20261128210000_notification_dedupe_by_order.js';

// Listed explicitly (no file globbing) so compiled and test runs load the same set in order.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
  { name: 'Migration20261121010000_stores', class: Migration20261121010000_stores },
  { name: 'Migration20261123000000_shared_stores', class: Migration20261123000000_shared_stores },
  { name: 'Migration20261123010000_admit_request', class: Migration20261123010000_admit_request },
  { name: 'Migration20261123100000_docs_requests', class: Migration20261123100000_docs_requests },
  { name: 'Migration20261123190000_key_expiry', class: Migration20261123190000_key_expiry },
  { name: 'Migration20261123200000_hot_path', class: Migration20261123200000_hot_path },
  { name: 'Migration20261123200000_dashboard_accounts', class: Migration20261123200000_dashboard_accounts },
  { name: 'Migration20261123210000_billing', class: Migration20261123210000_billing },
  { name: 'Migration20261123230000_request_timing', class: Migration20261123230000_request_timing },
  { name: 'Migration20261124000000_knowledge_bases', class: Migration20261124000000_knowledge_bases },
  { name: 'Migration20261124100000_webhooks', class: Migration20261124100000_webhooks },
  { name: 'Migration20261124200000_usage_by_endpoint', class: Migration20261124200000_usage_by_endpoint },
  { name: 'Migration20261124300000_window_reset', class: Migration20261124300000_window_reset },
  { name: 'Migration20261125000000_window_sequence', class: Migration20261125000000_window_sequence },
  { name: 'Migration20261126000000_usage_at_admission', class: Migration20261126000000_usage_at_admission },
  { name: 'Migration20261127000000_document_timings', class: Migration20261127000000_document_timings },
  { name: 'Migration20261128000000_counted_when_logged', class: Migration20261128000000_counted_when_logged },
  { name: 'Migration20261128100000_pending_deliveries_by_endpoint', class: Migration20261128100000_pending_deliveries_by_endpoint },
  { name: 'Migration20261128200000_document_chunks_to_remove', class: Migration20261128200000_document_chunks_to_remove },
  { name: 'Migration20261128210000_notification_dedupe_by_order', class: Migration20261128210000_notification_dedupe_by_order },
];
