// Package chronicle writes the chronicle reports from a project's history:
// a standup (what the sessions of a period set out to do and changed),
// tips (patterns in how the user works with agents) and improve (where the
// agent struggled, with lines proposed for the agents' instruction files).
//
// Gather prefetches the facts from the insight index and, for the few
// events the index does not summarise, from the store (read only). A
// writer turns the facts into Markdown: the built-in writer
// (deterministic) or an agent CLI given a prompt that holds the facts.
// Every claim cites a session and event ([S12#340]); Check verifies each
// citation against the stores and Render turns them into lazuli:// links,
// marking those that do not resolve.
//
// It never imports Fyne, and never writes to a store or to a project's
// files. Its functions may run on any goroutine.
package chronicle

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// Report names one of the chronicle reports.
type Report string

// The reports.
const (
	Standup Report = "standup"
	Tips    Report = "tips"
	Improve Report = "improve"
)

// Reports lists the reports in menu order.
var Reports = []Report{Standup, Tips, Improve}

// Title is the report's name for people.
func (r Report) Title() string {
	switch r {
	case Standup:
		return "Standup"
	case Tips:
		return "Tips"
	case Improve:
		return "Where the agent struggled"
	}
	return string(r)
}

// DefaultSince is the period a report covers when none is given: a day
// for the standup, all the history for tips and improve.
func (r Report) DefaultSince() string {
	if r == Standup {
		return "24h"
	}
	return "all"
}

// ParseReport returns the report named s.
func ParseReport(s string) (Report, error) {
	for _, r := range Reports {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown report %q (want standup, tips or improve)", s)
}

// Source is one store and its insight index, brought up to date by the
// caller.
type Source struct {
	Store *store.Store
	Index *insight.Index
}

// Window is the period a report covers.
type Window struct {
	From  string // store time "YYYY-MM-DD HH:MM:SS" UTC; "" for all the history
	Label string // as given: "24h", "7d", "2026-11-20", "all"
}

var reSince = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)([hd])$`) })

// ParseSince reads --since: Nh or Nd (the last hours or days before now),
// a day YYYY-MM-DD (from its start, UTC), or "all".
func ParseSince(s string, now time.Time) (Window, error) {
	s = strings.TrimSpace(s)
	if s == "all" {
		return Window{Label: s}, nil
	}
	if m := reSince().FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil && n > 0 && n <= 100000 {
			d := time.Duration(n) * time.Hour
			if m[2] == "d" {
				d *= 24
			}
			return Window{From: now.UTC().Add(-d).Format(store.TimeFormat), Label: s}, nil
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return Window{From: t.Format(store.TimeFormat), Label: s}, nil
	}
	return Window{}, fmt.Errorf("%w: %q (want 24h, 7d, YYYY-MM-DD or all)", ErrBadSince, s)
}

// ErrBadSince reports a --since that is not a period.
var ErrBadSince = errors.New("bad period")

// describe says what the window covers, for a report's heading.
func (w Window) describe() string {
	if w.From == "" {
		return "all the history"
	}
	if len(w.From) < 16 {
		return "since " + w.From
	}
	if w.Label != "" && w.Label != w.From[:10] {
		return fmt.Sprintf("since %s UTC (%s)", w.From[:16], w.Label)
	}
	return "since " + w.From[:10]
}
