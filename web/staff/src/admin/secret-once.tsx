// A secret the server shows once (a new API key, a user's one-time password, a webhook signing
// secret): announced, set apart to copy, with the screen's buttons to put it away. One markup for
// the three screens that show one, so the e2e tests find each by its test id the same way.
import type { ComponentChildren } from 'preact';

export function SecretOnce(p: { title: string; body: string; secret: string | null; testId: string; children: ComponentChildren }) {
  return (
    <div class="secret-once" role="alert">
      <p>
        <strong>{p.title}</strong> {p.body}
      </p>
      <code class="secret" data-testid={p.testId}>
        {p.secret}
      </code>
      <div class="dialog-actions">{p.children}</div>
    </div>
  );
}
