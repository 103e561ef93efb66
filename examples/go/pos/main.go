// Command pos is a point-of-sale integration with readybell: Go 1.19+, standard library only.
//
//	READYBELL_URL=https://pickup.example.com READYBELL_API_KEY=rk_test_... go run ./pos 1001
//
// It creates a ticket for order 1001, marks it ready, and collects it. Every POST carries an
// Idempotency-Key, reused on every retry, so a retry after a timeout never makes a second ticket.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

const maxAttempts = 5

// Problem is a refusal from readybell: an RFC 9457 problem document. Branch on Code.
type Problem struct {
	Status       int    `json:"status"`
	Code         string `json:"code"`
	Detail       string `json:"detail"`
	RequestID    string `json:"request_id"`
	TicketStatus string `json:"ticket_status"` // with ticket-state-conflict
}

func (p *Problem) Error() string {
	return fmt.Sprintf("%d %s: %s (%s)", p.Status, p.Code, p.Detail, p.RequestID)
}

type Ticket struct {
	ID            string `json:"id"`
	DisplayNumber string `json:"display_number"`
	URL           string `json:"url"`
	Status        string `json:"status"`
}

type ReadyResult struct {
	Rang        bool   `json:"rang"`
	ChannelUsed string `json:"channel_used"`
	CallOutLoud bool   `json:"call_out_loud"`
	Ticket      Ticket `json:"ticket"`
}

type Client struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client // its Timeout bounds each attempt
}

// Post sends a POST and decodes the answer into out. A timeout, a network error, a 5xx, a 429 or
// a 409 idempotency-key-in-use is tried again with the same key, after Retry-After when the answer
// gives one; any other refusal is returned as a *Problem.
func (c *Client) Post(path, idempotencyKey string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequest(http.MethodPost, c.BaseURL+path, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
		req.Header.Set("Idempotency-Key", idempotencyKey)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		var reason, retryAfter string
		res, err := c.HTTP.Do(req)
		if err != nil { // a timeout or no answer: did it happen? The same key makes asking again safe.
			reason = "no answer (" + err.Error() + ")"
		} else {
			data, readErr := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case readErr != nil:
				reason = "no answer (" + readErr.Error() + ")"
			case res.StatusCode < 300:
				return json.Unmarshal(data, out)
			default:
				problem := &Problem{Status: res.StatusCode}
				_ = json.Unmarshal(data, problem) // a proxy's error page leaves Code empty
				if res.StatusCode < 500 && res.StatusCode != 429 && problem.Code != "idempotency-key-in-use" {
					return problem // it will not change by asking again
				}
				if attempt == maxAttempts {
					return problem
				}
				reason, retryAfter = fmt.Sprintf("%d %s", res.StatusCode, problem.Code), res.Header.Get("Retry-After")
			}
		}
		if attempt == maxAttempts {
			return errors.New(reason)
		}
		// Retry-After in seconds when given, else exponential backoff: 0.5 s, 1 s, 2 s, ...
		delay := time.Duration(500<<(attempt-1)) * time.Millisecond
		if seconds, err := strconv.Atoi(retryAfter); err == nil && seconds >= 0 {
			delay = time.Duration(seconds) * time.Second
		}
		fmt.Printf("retrying POST %s in %v s after %s\n", path, delay.Seconds(), reason)
		time.Sleep(delay)
	}
}

func markReady(c *Client, ticket Ticket, idempotencyKey string) error {
	var result ReadyResult
	err := c.Post("/v1/tickets/"+ticket.ID+"/ready", idempotencyKey, nil, &result)
	var problem *Problem
	if errors.As(err, &problem) {
		switch problem.Code {
		case "ticket-state-conflict": // e.g. another till was quicker
			fmt.Printf("not marked ready: the ticket is already %s\n", problem.TicketStatus)
			return nil
		case "not-found":
			fmt.Printf("no ticket %s in this mode (a test key sees test tickets only)\n", ticket.ID)
			return nil
		}
	}
	if err != nil {
		return err
	}
	fmt.Printf("ready: channel_used=%s rang=%t call_out_loud=%t\n", result.ChannelUsed, result.Rang, result.CallOutLoud)
	if (result.ChannelUsed == "none" || result.ChannelUsed == "unknown") && !result.CallOutLoud {
		fmt.Printf("nobody was reached: call %s out loud\n", ticket.DisplayNumber)
	}
	return nil
}

func main() {
	log.SetFlags(0)
	timeout := 10 * time.Second // per attempt
	if s, err := strconv.ParseFloat(os.Getenv("READYBELL_TIMEOUT_SECONDS"), 64); err == nil {
		timeout = time.Duration(s * float64(time.Second))
	}
	c := &Client{
		BaseURL: strings.TrimRight(os.Getenv("READYBELL_URL"), "/"),
		APIKey:  os.Getenv("READYBELL_API_KEY"),
		HTTP:    &http.Client{Timeout: timeout},
	}
	order := "1001"
	if len(os.Args) > 1 {
		order = os.Args[1]
	}

	var ticket Ticket
	create := map[string]string{"queue": "A", "external_ref": order}
	if err := c.Post("/v1/tickets", "order-"+order+"-create", create, &ticket); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %s %s %s\n", ticket.ID, ticket.DisplayNumber, ticket.URL)
	if err := markReady(c, ticket, "order-"+order+"-ready"); err != nil {
		log.Fatal(err)
	}
	if err := markReady(c, ticket, "order-"+order+"-ready-till-2"); err != nil { // a second till presses "ready" too
		log.Fatal(err)
	}
	var collected Ticket
	if err := c.Post("/v1/tickets/"+ticket.ID+"/collect", "order-"+order+"-collect", nil, &collected); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("collected %s\n", collected.ID)
}
