<?php
// A readybell webhook receiver: PHP 8.1+, nothing else. Under PHP-FPM, or PHP's own server:
//
//   READYBELL_WEBHOOK_SECRET=whsec_... READYBELL_INBOX=/var/spool/readybell php -S 127.0.0.1:4242 receiver.php
//
// Checks both signatures of each delivery over the raw body (Service-Signature, Stripe's scheme,
// and the Standard Webhooks headers), refuses a stale timestamp, a replayed delivery and a bad
// signature with 400, and answers 204 at once: the event is only put in the inbox directory, one
// file per event, for your worker to process. PHP forgets everything between requests, so what was
// seen is kept as files there too.
declare(strict_types=1);

const TOLERANCE = 300; // seconds either way: an older delivery could be a captured one sent again

function refuse(int $status, string $reason): never
{
    // Said in the server's log, so that a wrong secret does not look like silence.
    error_log("rejected delivery " . ($_SERVER['HTTP_WEBHOOK_ID'] ?? '-') . " - $reason");
    http_response_code($status);
    header('Content-Type: text/plain');
    exit($reason);
}

function checkTimestamp(?string $value): void
{
    if (!preg_match('/^[0-9]{1,15}$/', $value ?? '')) {
        refuse(400, 'malformed timestamp');
    }
    if (abs(time() - (int) $value) > TOLERANCE) {
        refuse(400, 'timestamp out of tolerance');
    }
}

/** webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>...] */
function verifyStandardWebhooks(?string $id, ?string $ts, ?string $signatures, string $body, string $secret): void
{
    if ($id === null || $id === '' || $signatures === null) {
        refuse(400, 'missing webhook-* headers');
    }
    checkTimestamp($ts);
    // The base64 after "whsec_"; secrets issued before may lack padding or use - and _.
    $key = base64_decode(strtr(substr($secret, strlen('whsec_')), '-_', '+/'));
    $expected = base64_encode(hash_hmac('sha256', "$id.$ts.$body", $key, true));
    foreach (preg_split('/\s+/', trim($signatures)) as $entry) {
        if (str_starts_with($entry, 'v1,') && hash_equals($expected, substr($entry, 3))) {
            return;
        }
    }
    refuse(400, 'no matching webhook-signature');
}

/** Service-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...] (Stripe's scheme) */
function verifyServiceSignature(?string $header, string $body, string $secret): void
{
    $timestamps = $signatures = [];
    foreach (explode(',', $header ?? '') as $part) {
        [$name, $value] = array_pad(explode('=', trim($part), 2), 2, null);
        if ($name === 't') {
            $timestamps[] = $value;
        } elseif ($name === 'v1') {
            $signatures[] = $value;
        }
    }
    if (count($timestamps) !== 1 || $signatures === []) {
        refuse(400, 'malformed Service-Signature');
    }
    checkTimestamp($timestamps[0]);
    $expected = hash_hmac('sha256', "{$timestamps[0]}.$body", $secret);
    foreach ($signatures as $signature) {
        if (hash_equals($expected, (string) $signature)) {
            return;
        }
    }
    refuse(400, 'no matching Service-Signature');
}

/** Creates $path only if it does not exist yet: true the first time, false after. */
function firstTime(string $path, string $content = ''): bool
{
    $file = @fopen($path, 'x');
    if ($file === false) {
        return false;
    }
    fwrite($file, $content);
    fclose($file);
    return true;
}

if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    refuse(405, 'POST only');
}
$secret = getenv('READYBELL_WEBHOOK_SECRET') ?: refuse(500, 'READYBELL_WEBHOOK_SECRET is not set'); // whsec_...
$inbox = getenv('READYBELL_INBOX') ?: sys_get_temp_dir() . '/readybell-inbox';
is_dir($inbox) || mkdir($inbox, 0700, true);

$body = file_get_contents('php://input'); // the raw bytes
$id = $_SERVER['HTTP_WEBHOOK_ID'] ?? null;
$ts = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? null;
verifyStandardWebhooks($id, $ts, $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? null, $body, $secret);
verifyServiceSignature($_SERVER['HTTP_SERVICE_SIGNATURE'] ?? null, $body, $secret);
$event = json_decode($body, true);
if (!is_array($event) || !is_string($event['id'] ?? null) || !preg_match('/^[A-Za-z0-9_]{1,100}$/', $event['id'])) {
    refuse(400, 'invalid payload');
}

// A delivery is (webhook-id, webhook-timestamp): readybell's retries of an event carry a new
// timestamp, so the same pair twice is someone replaying a captured request. A pair is kept while
// its timestamp is within tolerance; an older one is refused anyway.
foreach (glob("$inbox/delivery-*") as $old) {
    if (filemtime($old) < time() - 2 * TOLERANCE) {
        @unlink($old);
    }
}
if (!firstTime("$inbox/delivery-" . hash('sha256', "$id.$ts"))) {
    refuse(400, 'replayed delivery');
}
// One file per event: a retry of an event already received is answered 2xx and not queued again.
if (firstTime("$inbox/{$event['id']}.json", $body)) {
    // Your worker processes the inbox; here it only says what arrived.
    file_put_contents('php://stdout', "event {$event['type']} {$event['id']}\n");
}
http_response_code(204);
