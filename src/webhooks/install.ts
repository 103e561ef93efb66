// Wires webhooks into a service: the fan-out hook every recorded event passes through, and the
// `webhook` job kind with its keep-alive HTTP client. Called by the composition root only.
import type { Services } from '../actions/ctx.ts';
import type { Task } from '../jobs/runner.ts';
import { WebhookHttpClient } from './http-client.ts';
import { webhookDeliveryTask } from './deliver.ts';
import { WEBHOOK_JOB_KIND, webhookFanOut } from './fan-out.ts';
import { SecretBox } from './secret-box.ts';
import { systemLookup } from './url-policy.ts';

export function installWebhooks(services: Services, tasks: Map<string, Task>): { close(): void } {
  const client = new WebhookHttpClient(() => services.webhookLookup ?? systemLookup);
  tasks.set(WEBHOOK_JOB_KIND, webhookDeliveryTask(client, new SecretBox(services.config.webhookSecretsKey)));
  services.eventHooks.push(webhookFanOut());
  return { close: () => client.close() };
}
