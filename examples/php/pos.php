<?php
// A point-of-sale integration with readybell: PHP 8.1+ with the curl extension, nothing else.
//
//   READYBELL_URL=https://pickup.example.com READYBELL_API_KEY=rk_test_... php pos.php 1001
//
// Creates a ticket for order 1001, marks it ready, and collects it. Every POST carries an
// Idempotency-Key, reused on every retry, so a retry after a timeout never makes a second ticket.
declare(strict_types=1);

const MAX_ATTEMPTS = 5;

/** A refusal from readybell: an RFC 9457 problem document. Branch on $problemCode. */
final class Problem extends RuntimeException
{
    public readonly ?string $problemCode;

    public function __construct(public readonly int $status, public readonly array $body)
    {
        $this->problemCode = $body['code'] ?? null;
        parent::__construct(sprintf('%d %s: %s (%s)', $status, $this->problemCode, $body['detail'] ?? '', $body['request_id'] ?? ''));
    }
}

/**
 * POST with retries: a timeout, a network error, a 5xx, a 429 or a 409 idempotency-key-in-use is
 * tried again with the same key, after Retry-After when the answer gives one.
 */
function post(string $path, string $idempotencyKey, ?array $body = null): array
{
    $headers = [
        'Authorization: Bearer ' . getenv('READYBELL_API_KEY'),
        'Idempotency-Key: ' . $idempotencyKey,
        // Without a body, "Content-Type:" stops curl from sending its form type, which readybell refuses.
        $body === null ? 'Content-Type:' : 'Content-Type: application/json',
    ];
    for ($attempt = 1; ; $attempt++) {
        $retryAfter = null;
        $curl = curl_init(rtrim(getenv('READYBELL_URL'), '/') . $path);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => $body === null ? '' : json_encode($body),
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT_MS => (int) (1000 * (float) (getenv('READYBELL_TIMEOUT_SECONDS') ?: 10)), // per attempt
            CURLOPT_HEADERFUNCTION => function ($curl, string $line) use (&$retryAfter): int {
                if (preg_match('/^Retry-After:\s*(\d+)\s*$/i', $line, $m)) {
                    $retryAfter = (int) $m[1];
                }
                return strlen($line);
            },
        ]);
        $answer = curl_exec($curl);
        $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $error = curl_error($curl);
        curl_close($curl);

        if ($answer === false) { // a timeout or no answer: did it happen? The same key makes asking again safe.
            $reason = "no answer ($error)";
            if ($attempt === MAX_ATTEMPTS) {
                throw new RuntimeException($reason);
            }
        } elseif ($status < 300) {
            return json_decode($answer, true, 512, JSON_THROW_ON_ERROR);
        } else {
            $document = json_decode($answer, true); // null for a proxy's error page
            $problem = new Problem($status, is_array($document) ? $document : []);
            if (($status < 500 && $status !== 429 && $problem->problemCode !== 'idempotency-key-in-use') || $attempt === MAX_ATTEMPTS) {
                throw $problem; // any other refusal will not change by asking again
            }
            $reason = "$status {$problem->problemCode}";
        }
        // Retry-After in seconds when given, else exponential backoff: 0.5 s, 1 s, 2 s, ...
        $delay = $retryAfter ?? 0.5 * 2 ** ($attempt - 1);
        echo "retrying POST $path in $delay s after $reason\n";
        usleep((int) ($delay * 1_000_000));
    }
}

function markReady(array $ticket, string $idempotencyKey): void
{
    try {
        $result = post("/v1/tickets/{$ticket['id']}/ready", $idempotencyKey);
    } catch (Problem $problem) {
        switch ($problem->problemCode) {
            case 'ticket-state-conflict': // e.g. another till was quicker
                echo "not marked ready: the ticket is already {$problem->body['ticket_status']}\n";
                return;
            case 'not-found':
                echo "no ticket {$ticket['id']} in this mode (a test key sees test tickets only)\n";
                return;
            default:
                throw $problem;
        }
    }
    $bool = fn (bool $b): string => $b ? 'true' : 'false';
    echo "ready: channel_used={$result['channel_used']} rang={$bool($result['rang'])} call_out_loud={$bool($result['call_out_loud'])}\n";
    if (in_array($result['channel_used'], ['none', 'unknown'], true) && !$result['call_out_loud']) {
        echo "nobody was reached: call {$ticket['display_number']} out loud\n";
    }
}

$order = $argv[1] ?? '1001';
$ticket = post('/v1/tickets', "order-$order-create", ['queue' => 'A', 'external_ref' => $order]);
echo "created {$ticket['id']} {$ticket['display_number']} {$ticket['url']}\n";
markReady($ticket, "order-$order-ready");
markReady($ticket, "order-$order-ready-till-2"); // a second till presses "ready" too
post("/v1/tickets/{$ticket['id']}/collect", "order-$order-collect");
echo "collected {$ticket['id']}\n";
