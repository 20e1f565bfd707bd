package proctime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// agentsviewPageSize is the largest page agentsview's search API serves
// (db.MaxSearchLimit).
const agentsviewPageSize = 500

// CountSessions returns how many distinct sessions the output of `lazuli
// search --json` names. It reads an array of hits, or an object with a
// "hits" array, a "sessions" array or both; a hit or session is an object
// with a "session_id" (or "id"), told apart by its "store", or a bare id.
func CountSessions(data []byte) (int, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return 0, fmt.Errorf("parse search output: %w", err)
	}
	var lists [][]any
	switch t := v.(type) {
	case []any:
		lists = append(lists, t)
	case map[string]any:
		found := false
		for _, key := range []string{"hits", "sessions"} {
			val, ok := t[key]
			if !ok {
				continue
			}
			found = true
			switch l := val.(type) {
			case []any:
				lists = append(lists, l)
			case nil:
			default:
				return 0, fmt.Errorf("parse search output: %q is not a list", key)
			}
		}
		if !found {
			return 0, fmt.Errorf("parse search output: an object without \"hits\" or \"sessions\"")
		}
	default:
		return 0, fmt.Errorf("parse search output: neither a list nor an object")
	}
	seen := map[string]bool{}
	for _, l := range lists {
		for i, e := range l {
			key, err := sessionKey(e)
			if err != nil {
				return 0, fmt.Errorf("parse search output: entry %d: %w", i+1, err)
			}
			seen[key] = true
		}
	}
	return len(seen), nil
}

// sessionKey returns what tells a hit's or session's session apart: its
// store and id.
func sessionKey(e any) (string, error) {
	switch t := e.(type) {
	case json.Number:
		return "\x00" + t.String(), nil
	case string:
		return "\x00" + t, nil
	case map[string]any:
		id, ok := t["session_id"]
		if !ok {
			id, ok = t["id"]
		}
		if !ok {
			return "", fmt.Errorf("no session_id")
		}
		store, _ := t["store"].(string)
		return fmt.Sprintf("%s\x00%v", store, id), nil
	}
	return "", fmt.Errorf("not an object or an id")
}

// agentsviewPage is a page of agentsview's GET /api/v1/search.
type agentsviewPage struct {
	Results []struct {
		SessionID string `json:"session_id"`
	} `json:"results"`
	Next int `json:"next"` // the cursor of the next page; 0 on the last
}

// parseAgentsviewPage reads a page of agentsview's search API: the session
// of each hit and the next page's cursor (0 on the last page).
func parseAgentsviewPage(data []byte) (sessions []string, next int, err error) {
	var p agentsviewPage
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, 0, fmt.Errorf("parse search page: %w", err)
	}
	if p.Results == nil && !bytes.Contains(data, []byte(`"results"`)) {
		return nil, 0, fmt.Errorf("parse search page: no \"results\"")
	}
	for _, r := range p.Results {
		sessions = append(sessions, r.SessionID)
	}
	return sessions, p.Next, nil
}

// AgentsviewSessions pages through agentsview's search API at searchURL
// (http://HOST:PORT/api/v1/search?q=WORD) 500 hits at a time and returns
// how many distinct sessions and hits it lists.
func AgentsviewSessions(ctx context.Context, searchURL string) (sessions, hits int, err error) {
	u, err := url.Parse(searchURL)
	if err != nil {
		return 0, 0, err
	}
	q := u.Query()
	q.Set("limit", strconv.Itoa(agentsviewPageSize))
	seen := map[string]bool{}
	for cursor := 0; ; {
		q.Set("cursor", strconv.Itoa(cursor))
		u.RawQuery = q.Encode()
		body, err := get(ctx, u.String())
		if err != nil {
			return 0, 0, err
		}
		ids, next, err := parseAgentsviewPage(body)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", u, err)
		}
		for _, id := range ids {
			seen[id] = true
		}
		hits += len(ids)
		if next == 0 {
			return len(seen), hits, nil
		}
		if next <= cursor {
			return 0, 0, fmt.Errorf("%s: next page %d does not move past %d", u, next, cursor)
		}
		cursor = next
	}
}

func get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %.200s", u, resp.Status, body)
	}
	return body, nil
}
