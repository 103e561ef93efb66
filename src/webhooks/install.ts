// Builds webhooks for the composition root: the `webhook` job kind, sending with the app's
// outbound HTTP client. The fan-out that makes the deliveries is the services' event sink (webhookFanOut, given
// to the Services by the composition root).
import type { Config } from '../core/config.ts';
import type { JobRegistry } from '../core/job-registry.ts';
import type { OutboundHttpClient } from './http-client.ts';
import { webhookDeliveryTask } from './deliver.ts';
import { WEBHOOK_JOB } from './fan-out.ts';
import { SecretBox } from '../domain/secret-box.ts';

/** `client`: the app's outbound HTTP client, which checks every address it connects to. */
export function installWebhooks(config: Config, tasks: JobRegistry, client: OutboundHttpClient): void {
  tasks.set(WEBHOOK_JOB, webhookDeliveryTask(client, new SecretBox(config.webhookSecretsKey)));
}
