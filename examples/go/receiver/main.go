// Command receiver is a readybell webhook receiver: Go 1.19+, standard library only.
//
//	READYBELL_WEBHOOK_SECRET=whsec_... PORT=4242 go run ./receiver
//
// It checks both signatures of each delivery over the raw body (Service-Signature, Stripe's
// scheme, and the Standard Webhooks headers), refuses a stale timestamp, a replayed delivery and a
// bad signature with 400, answers 204 at once and does the work on another goroutine.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

const tolerance = 300 // seconds either way: an older delivery could be a captured one sent again

type Event struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

func sign(key []byte, parts ...[]byte) []byte {
	mac := hmac.New(sha256.New, key)
	for _, p := range parts {
		mac.Write(p)
	}
	return mac.Sum(nil)
}

func checkTimestamp(value string) error {
	ts, err := strconv.ParseInt(value, 10, 64)
	if err != nil || len(value) > 15 {
		return errors.New("malformed timestamp")
	}
	if math.Abs(float64(time.Now().Unix()-ts)) > tolerance {
		return errors.New("timestamp out of tolerance")
	}
	return nil
}

// standardKey is the base64 after "whsec_"; secrets issued before may lack padding or use - and _.
func standardKey(secret string) ([]byte, error) {
	encoded := strings.NewReplacer("-", "+", "_", "/").Replace(strings.TrimPrefix(secret, "whsec_"))
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(encoded, "="))
}

// verifyStandardWebhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>...]
func verifyStandardWebhooks(h http.Header, body []byte, secret string) error {
	id, ts, signatures := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || signatures == "" {
		return errors.New("missing webhook-* headers")
	}
	if err := checkTimestamp(ts); err != nil {
		return err
	}
	key, err := standardKey(secret)
	if err != nil {
		return err
	}
	expected := base64.StdEncoding.EncodeToString(sign(key, []byte(id+"."+ts+"."), body))
	for _, s := range strings.Fields(signatures) {
		if strings.HasPrefix(s, "v1,") && hmac.Equal([]byte(expected), []byte(s[3:])) {
			return nil
		}
	}
	return errors.New("no matching webhook-signature")
}

// verifyServiceSignature: Service-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...] (Stripe's scheme)
func verifyServiceSignature(header string, body []byte, secret string) error {
	var timestamps, signatures []string
	for _, part := range strings.Split(header, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "t":
			timestamps = append(timestamps, value)
		case "v1":
			signatures = append(signatures, value)
		}
	}
	if len(timestamps) != 1 || len(signatures) == 0 {
		return errors.New("malformed Service-Signature")
	}
	if err := checkTimestamp(timestamps[0]); err != nil {
		return err
	}
	expected := hex.EncodeToString(sign([]byte(secret), []byte(timestamps[0]+"."), body))
	for _, s := range signatures {
		if hmac.Equal([]byte(expected), []byte(s)) {
			return nil
		}
	}
	return errors.New("no matching Service-Signature")
}

// Receiver remembers deliveries and events. A delivery is (webhook-id, webhook-timestamp):
// readybell's retries of an event carry a new timestamp, so the same pair twice is someone
// replaying a captured request. Pairs are kept while their timestamp is within tolerance; an older
// one is refused anyway.
type Receiver struct {
	secret string
	work   chan Event
	mu     sync.Mutex
	seen   map[string]int64    // delivery -> its timestamp
	events map[string]struct{} // in production: a table with a unique index on the event id
}

// firstTime says whether this delivery is new, and whether its event is.
func (r *Receiver) firstTime(id, ts string) (newDelivery, newEvent bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().Unix()
	for k, at := range r.seen {
		if at < now-tolerance {
			delete(r.seen, k)
		}
	}
	if _, ok := r.seen[id+"."+ts]; ok {
		return false, false
	}
	r.seen[id+"."+ts], _ = strconv.ParseInt(ts, 10, 64)
	_, handled := r.events[id]
	r.events[id] = struct{}{}
	return true, !handled
}

// reject answers 400 and says why in the log, so that a wrong secret does not look like silence.
func reject(w http.ResponseWriter, req *http.Request, reason string) {
	log.Printf("rejected delivery %s - %s", req.Header.Get("webhook-id"), reason)
	http.Error(w, reason, http.StatusBadRequest)
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20)) // the raw bytes
	if err != nil {
		reject(w, req, "unreadable body")
		return
	}
	if err := verifyStandardWebhooks(req.Header, body, r.secret); err != nil {
		reject(w, req, err.Error())
		return
	}
	if err := verifyServiceSignature(req.Header.Get("Service-Signature"), body, r.secret); err != nil {
		reject(w, req, err.Error())
		return
	}
	var event Event
	if err := json.Unmarshal(body, &event); err != nil {
		reject(w, req, "invalid payload")
		return
	}
	// webhook-id is the event's id, so the id of a retry is the id of the event already seen.
	newDelivery, newEvent := r.firstTime(req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"))
	if !newDelivery {
		reject(w, req, "replayed delivery")
		return
	}
	if newEvent {
		r.work <- event
	}
	w.WriteHeader(http.StatusNoContent)
}

func main() {
	log.SetFlags(0)
	secret := os.Getenv("READYBELL_WEBHOOK_SECRET") // whsec_...
	if secret == "" {
		log.Fatal("READYBELL_WEBHOOK_SECRET is not set")
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "4242"
	}
	r := &Receiver{secret: secret, work: make(chan Event, 1000), seen: map[string]int64{}, events: map[string]struct{}{}}
	go func() {
		for event := range r.work {
			fmt.Println("event", event.Type, event.ID) // your work goes here
		}
	}()
	server := &http.Server{Addr: "127.0.0.1:" + port, Handler: r, ReadHeaderTimeout: 10 * time.Second}
	fmt.Println("listening on", port)
	log.Fatal(server.ListenAndServe())
}
