// A point-of-sale integration with readybell: Java 17+, the JDK's HttpClient and Jackson.
//
//   CP=/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-core.jar:/usr/share/java/jackson-annotations.jar
//   READYBELL_URL=https://pickup.example.com READYBELL_API_KEY=rk_test_... java -cp $CP ReadybellPos.java 1001
//
// Creates a ticket for order 1001, marks it ready, and collects it. Every POST carries an
// Idempotency-Key, reused on every retry, so a retry after a timeout never makes a second ticket.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

public class ReadybellPos {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int MAX_ATTEMPTS = 5;

    /** A refusal from readybell: an RFC 9457 problem document. Branch on {@link #code}. */
    static class Problem extends Exception {
        final int status;
        final String code;
        final JsonNode body;

        Problem(int status, JsonNode body) {
            super(status + " " + body.path("code").asText() + ": " + body.path("detail").asText() + " (" + body.path("request_id").asText() + ")");
            this.status = status;
            this.code = body.path("code").asText(null);
            this.body = body;
        }
    }

    final String baseUrl = System.getenv("READYBELL_URL").replaceAll("/+$", "");
    final String apiKey = System.getenv("READYBELL_API_KEY");
    final Duration timeout = Duration.ofMillis((long) (1000 * Double.parseDouble(System.getenv().getOrDefault("READYBELL_TIMEOUT_SECONDS", "10")))); // per attempt
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /**
     * POST with retries: a timeout, a network error, a 5xx, a 429 or a 409 idempotency-key-in-use
     * is tried again with the same key, after Retry-After when the answer gives one.
     */
    JsonNode post(String path, String idempotencyKey, Object body) throws Problem, IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(timeout)
                .header("Authorization", "Bearer " + apiKey)
                .header("Idempotency-Key", idempotencyKey);
        if (body == null) {
            request.POST(HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        }
        for (int attempt = 1; ; attempt++) {
            String reason;
            String retryAfter = null;
            try {
                HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                int status = response.statusCode();
                if (status < 300) return JSON.readTree(response.body());
                JsonNode document;
                try {
                    document = JSON.readTree(response.body());
                } catch (IOException notJson) { // a proxy's error page
                    document = JsonNodeFactory.instance.objectNode();
                }
                Problem problem = new Problem(status, document);
                if ((status < 500 && status != 429 && !"idempotency-key-in-use".equals(problem.code)) || attempt == MAX_ATTEMPTS) {
                    throw problem; // any other refusal will not change by asking again
                }
                reason = status + " " + problem.code;
                retryAfter = response.headers().firstValue("Retry-After").orElse(null);
            } catch (IOException noAnswer) { // a timeout or no answer: did it happen? The same key makes asking again safe.
                if (attempt == MAX_ATTEMPTS) throw noAnswer;
                reason = "no answer (" + noAnswer + ")";
            }
            // Retry-After in seconds when given, else exponential backoff: 0.5 s, 1 s, 2 s, ...
            double delay = retryAfter != null && retryAfter.matches("[0-9]+") ? Integer.parseInt(retryAfter) : 0.5 * (1 << (attempt - 1));
            System.out.printf("retrying POST %s in %s s after %s%n", path, delay % 1 == 0 ? String.valueOf((long) delay) : String.valueOf(delay), reason);
            Thread.sleep((long) (delay * 1000));
        }
    }

    void markReady(JsonNode ticket, String idempotencyKey) throws Exception {
        JsonNode result;
        try {
            result = post("/v1/tickets/" + ticket.get("id").asText() + "/ready", idempotencyKey, null);
        } catch (Problem problem) {
            switch (String.valueOf(problem.code)) {
                case "ticket-state-conflict" -> { // e.g. another till was quicker
                    System.out.println("not marked ready: the ticket is already " + problem.body.path("ticket_status").asText());
                    return;
                }
                case "not-found" -> {
                    System.out.println("no ticket " + ticket.get("id").asText() + " in this mode (a test key sees test tickets only)");
                    return;
                }
                default -> throw problem;
            }
        }
        String channel = result.get("channel_used").asText();
        boolean callOutLoud = result.get("call_out_loud").asBoolean();
        System.out.printf("ready: channel_used=%s rang=%s call_out_loud=%s%n", channel, result.get("rang").asBoolean(), callOutLoud);
        if ((channel.equals("none") || channel.equals("unknown")) && !callOutLoud) {
            System.out.println("nobody was reached: call " + ticket.get("display_number").asText() + " out loud");
        }
    }

    public static void main(String[] args) throws Exception {
        ReadybellPos pos = new ReadybellPos();
        String order = args.length > 0 ? args[0] : "1001";
        JsonNode ticket = pos.post("/v1/tickets", "order-" + order + "-create", Map.of("queue", "A", "external_ref", order));
        String id = ticket.get("id").asText();
        System.out.println("created " + id + " " + ticket.get("display_number").asText() + " " + ticket.get("url").asText());
        pos.markReady(ticket, "order-" + order + "-ready");
        pos.markReady(ticket, "order-" + order + "-ready-till-2"); // a second till presses "ready" too
        pos.post("/v1/tickets/" + id + "/collect", "order-" + order + "-collect", null);
        System.out.println("collected " + id);
    }
}
