// A readybell webhook receiver: Java 17+, the JDK's HttpServer and Jackson.
//
//   CP=/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-core.jar:/usr/share/java/jackson-annotations.jar
//   READYBELL_WEBHOOK_SECRET=whsec_... PORT=4242 java -cp $CP WebhookReceiver.java
//
// Checks both signatures of each delivery over the raw body (Service-Signature, Stripe's scheme,
// and the Standard Webhooks headers), refuses a stale timestamp, a replayed delivery and a bad
// signature with 400, answers 204 at once and does the work on another thread.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class WebhookReceiver {
    static final String SECRET = System.getenv("READYBELL_WEBHOOK_SECRET"); // whsec_...
    static final long TOLERANCE_SECONDS = 300; // either way: an older delivery could be a captured one sent again
    static final ObjectMapper JSON = new ObjectMapper();
    static final ExecutorService WORK = Executors.newSingleThreadExecutor();

    // A delivery is (webhook-id, webhook-timestamp): readybell's retries of an event carry a new
    // timestamp, so the same pair twice is someone replaying a captured request. Pairs are kept
    // while their timestamp is within tolerance; an older one is refused anyway.
    static final Map<String, Long> DELIVERIES_SEEN = new ConcurrentHashMap<>();
    static final Set<String> EVENTS_SEEN = ConcurrentHashMap.newKeySet(); // in production: a table with a unique index on the event id

    static class Invalid extends Exception {
        Invalid(String message) { super(message); }
    }

    static byte[] hmacSha256(byte[] key, String prefix, byte[] body) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update(prefix.getBytes(StandardCharsets.UTF_8));
        return mac.doFinal(body);
    }

    static boolean anyEquals(byte[] expected, List<String> signatures) {
        boolean matched = false;
        for (String s : signatures) matched |= MessageDigest.isEqual(expected, s.getBytes(StandardCharsets.UTF_8));
        return matched;
    }

    static long checkTimestamp(String value) throws Invalid {
        if (value == null || !value.matches("[0-9]{1,15}")) throw new Invalid("malformed timestamp");
        long ts = Long.parseLong(value);
        if (Math.abs(System.currentTimeMillis() / 1000 - ts) > TOLERANCE_SECONDS) throw new Invalid("timestamp out of tolerance");
        return ts;
    }

    /** webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>...] */
    static void verifyStandardWebhooks(Headers headers, byte[] body) throws Invalid, GeneralSecurityException {
        String id = headers.getFirst("webhook-id");
        String ts = headers.getFirst("webhook-timestamp");
        String header = headers.getFirst("webhook-signature");
        if (id == null || header == null) throw new Invalid("missing webhook-* headers");
        checkTimestamp(ts);
        // The base64 after "whsec_"; secrets issued before may lack padding or use - and _.
        byte[] key = Base64.getDecoder().decode(SECRET.substring("whsec_".length()).replace('-', '+').replace('_', '/'));
        byte[] expected = Base64.getEncoder().encode(hmacSha256(key, id + "." + ts + ".", body));
        List<String> signatures = new ArrayList<>();
        for (String entry : header.trim().split("\\s+")) if (entry.startsWith("v1,")) signatures.add(entry.substring(3));
        if (!anyEquals(expected, signatures)) throw new Invalid("no matching webhook-signature");
    }

    /** Service-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...] (Stripe's scheme) */
    static void verifyServiceSignature(String header, byte[] body) throws Invalid, GeneralSecurityException {
        List<String> timestamps = new ArrayList<>();
        List<String> signatures = new ArrayList<>();
        for (String part : (header == null ? "" : header).split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2) continue;
            if (kv[0].equals("t")) timestamps.add(kv[1]);
            if (kv[0].equals("v1")) signatures.add(kv[1]);
        }
        if (timestamps.size() != 1 || signatures.isEmpty()) throw new Invalid("malformed Service-Signature");
        checkTimestamp(timestamps.get(0));
        byte[] mac = hmacSha256(SECRET.getBytes(StandardCharsets.UTF_8), timestamps.get(0) + ".", body);
        if (!anyEquals(HexFormat.of().formatHex(mac).getBytes(StandardCharsets.UTF_8), signatures)) {
            throw new Invalid("no matching Service-Signature");
        }
    }

    static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    static void handle(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestMethod().equals("POST")) {
            answer(exchange, 405, "POST only");
            return;
        }
        byte[] body = exchange.getRequestBody().readAllBytes(); // the raw bytes
        Headers headers = exchange.getRequestHeaders();
        JsonNode event;
        try {
            verifyStandardWebhooks(headers, body);
            verifyServiceSignature(headers.getFirst("Service-Signature"), body);
            event = JSON.readTree(body);
            long now = System.currentTimeMillis() / 1000;
            DELIVERIES_SEEN.values().removeIf(at -> at < now - TOLERANCE_SECONDS);
            String ts = headers.getFirst("webhook-timestamp");
            if (DELIVERIES_SEEN.putIfAbsent(headers.getFirst("webhook-id") + "." + ts, Long.parseLong(ts)) != null) {
                throw new Invalid("replayed delivery");
            }
        } catch (Invalid | IOException e) {
            // Said, so that a wrong secret does not look like silence (readybell retries meanwhile).
            System.err.println("rejected delivery " + exchange.getRequestHeaders().getFirst("webhook-id") + " - " + e.getMessage());
            answer(exchange, 400, e.getMessage());
            return;
        } catch (GeneralSecurityException e) {
            answer(exchange, 500, "");
            return;
        }
        // A retry of an event already handled is answered 2xx too, and not handled again.
        if (EVENTS_SEEN.add(event.path("id").asText())) {
            WORK.submit(() -> System.out.println("event " + event.path("type").asText() + " " + event.path("id").asText())); // your work goes here
        }
        answer(exchange, 204, "");
    }

    public static void main(String[] args) throws IOException {
        if (SECRET == null || !SECRET.startsWith("whsec_")) {
            System.err.println("READYBELL_WEBHOOK_SECRET is not set: give the endpoint's signing secret (whsec_...)");
            System.exit(2);
        }
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "4242"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", WebhookReceiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        System.out.println("listening on " + port);
    }
}
