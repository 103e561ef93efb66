// Builds webhooks for the composition root: the `webhook` job kind with its keep-alive HTTP
// client. The fan-out that makes the deliveries is the services' event sink (webhookFanOut, given
// to the Services by the composition root).
import type { Config } from '../core/config.ts';
import type { HostLookup } from '../core/host-lookup.ts';
import type { JobRegistry } from '../jobs/registry.ts';
import { WebhookHttpClient } from './http-client.ts';
import { webhookDeliveryTask } from './deliver.ts';
import { WEBHOOK_JOB } from './fan-out.ts';
import { SecretBox } from './secret-box.ts';
import { systemLookup } from './url-policy.ts';

/** `lookup`: resolves receivers' hosts at delivery (Services.webhookLookup); the system resolver when unset. */
export function installWebhooks(config: Config, tasks: JobRegistry, lookup: HostLookup | undefined): { close(): void } {
  const client = new WebhookHttpClient(lookup ?? systemLookup);
  tasks.set(WEBHOOK_JOB, webhookDeliveryTask(client, new SecretBox(config.webhookSecretsKey)));
  return { close: () => client.close() };
}
