package proctime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestCountSessions(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr string
	}{
		{"array of hits", `[{"store":"a.azs","session_id":1,"seq":3},{"store":"a.azs","session_id":1,"seq":9},{"store":"a.azs","session_id":2}]`, 2, ""},
		{"same id in two stores", `[{"store":"a.azs","session_id":1},{"store":"b.azs","session_id":1}]`, 2, ""},
		{"empty array", `[]`, 0, ""},
		{"object with hits", `{"hits":[{"session_id":1},{"session_id":2},{"session_id":2}],"partial":false}`, 2, ""},
		{"object with hits null", `{"hits":null}`, 0, ""},
		{"sessions list beside hits", `{"hits":[{"session_id":1}],"sessions":[{"session_id":1},{"session_id":5},{"session_id":6}]}`, 3, ""},
		{"sessions list of bare ids", `{"sessions":[1,2,2,"3"]}`, 3, ""},
		{"sessions list with id", `{"sessions":[{"store":"a","id":1},{"store":"a","id":2}]}`, 2, ""},
		{"not JSON", `no matches`, 0, "parse search output"},
		{"an object without hits", `{"results":[]}`, 0, "without"},
		{"hits not a list", `{"hits":3}`, 0, "not a list"},
		{"a hit without a session", `[{"seq":1}]`, 0, "entry 1: no session_id"},
		{"a number", `42`, 0, "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CountSessions([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CountSessions(%s) = %d, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CountSessions(%s) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzCountSessions(f *testing.F) {
	f.Add(`[{"store":"a.azs","session_id":1}]`)
	f.Add(`{"hits":[{"session_id":1}],"sessions":[1,"2"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := CountSessions([]byte(s)); n < 0 || (err != nil && n != 0) {
			t.Errorf("CountSessions(%q) = %d, %v", s, n, err)
		}
	})
}

func TestParseAgentsviewPage(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		wantNext int
		wantErr  bool
	}{
		{`{"query":"error","results":[{"session_id":"a","ordinal":1},{"session_id":"b"}],"count":2,"next":500}`, "a b", 500, false},
		{`{"query":"error","results":[],"count":0,"next":0}`, "", 0, false},
		{`{"error":"request timed out"}`, "", 0, true},
		{`<html>`, "", 0, true},
	}
	for _, tt := range tests {
		ids, next, err := parseAgentsviewPage([]byte(tt.in))
		if got := strings.Join(ids, " "); (err != nil) != tt.wantErr || got != tt.want || next != tt.wantNext {
			t.Errorf("parseAgentsviewPage(%s) = %q, %d, %v; want %q, %d, error %v", tt.in, got, next, err, tt.want, tt.wantNext, tt.wantErr)
		}
	}
}

// TestAgentsviewSessions pages through a fake search API of 1,203 hits
// in 400 sessions, which serves at most 500 hits a page as agentsview does.
func TestAgentsviewSessions(t *testing.T) {
	const total = 1203
	var pages int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/v1/search" || q.Get("q") != "error" {
			http.Error(w, "wrong request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		cursor, _ := strconv.Atoi(q.Get("cursor"))
		limit = min(limit, 500)
		pages++
		type hit struct {
			SessionID string `json:"session_id"`
		}
		page := struct {
			Results []hit `json:"results"`
			Next    int   `json:"next"`
		}{Results: []hit{}}
		for i := cursor; i < min(cursor+limit, total); i++ {
			page.Results = append(page.Results, hit{"s" + strconv.Itoa(i%400)})
		}
		if cursor+limit < total {
			page.Next = cursor + limit
		}
		_ = json.NewEncoder(w).Encode(page)
	}))
	defer srv.Close()
	sessions, hits, err := AgentsviewSessions(context.Background(), srv.URL+"/api/v1/search?q=error")
	if err != nil || sessions != 400 || hits != total || pages != 3 {
		t.Errorf("AgentsviewSessions = %d sessions, %d hits in %d pages, %v; want 400, %d in 3", sessions, hits, pages, err, total)
	}
}

func TestAgentsviewSessionsStuckCursor(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests++; requests > 10 {
			http.Error(w, "still asked", http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"results":[{"session_id":"a"}],"next":3}`))
	}))
	defer srv.Close()
	if _, _, err := AgentsviewSessions(context.Background(), srv.URL+"/api/v1/search?q=x"); err == nil ||
		!strings.Contains(err.Error(), "does not move") {
		t.Errorf("AgentsviewSessions of a page that repeats = %v, want an error", err)
	}
}
