package genstore

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// sessionPlan is what is decided about a session before any of its events
// are generated.
type sessionPlan struct {
	index    int // order of first activity: the session's id is index+1
	events   int
	worktree string
	name     string
	codex    bool
	lang     language
	seed     uint64
	big      bool
	rare     []string // needles planted in the first prompt

	gen *sessionGen // while its sittings are being generated
}

// sitting is a stretch of work on one session: its events are stored
// together. Long sessions have several sittings, days apart, with other
// sessions' work in between, so their rows are spread over the file as in
// a store that has been used for months.
type sitting struct {
	session     int // index into the plans
	events      int
	at          float64 // position on the store's timeline, 0 to 1
	first, last bool
}

// Session lengths: log-normal weights (many short sessions, a few long
// ones), scaled to the requested total.
const (
	lengthSigma    = 1.3
	emptyShare     = 0.015 // sessions created and never used
	codexShare     = 0.25
	namedShare     = 0.45
	sittingEvents  = 2500 // events per sitting, at most about
	resumeShare    = 0.2  // sessions resumed once more after a break
	sittingGapMean = 0.01 // mean distance between two sittings on the timeline
)

// makePlan decides every session and the order their sittings are written.
func makePlan(opts Options) ([]sessionPlan, []sitting, error) {
	if opts.Sessions < 1 || opts.Events < 0 || opts.Big < 0 {
		return nil, nil, errors.New("sessions must be at least 1, events and big not negative")
	}
	if opts.Big > opts.Events {
		return nil, nil, fmt.Errorf("the big session (%d events) needs at least as many events in all (%d)", opts.Big, opts.Events)
	}
	if opts.Big > 0 && opts.Sessions == 1 && opts.Events != opts.Big {
		return nil, nil, errors.New("with one session, events must equal big")
	}
	r := rand.New(rand.NewPCG(opts.Seed, 0x706c616e))
	plans := make([]sessionPlan, opts.Sessions)
	bigAt := -1
	if opts.Big > 0 {
		bigAt = opts.Sessions / 3
	}
	nWorktrees := min(len(worktrees), 3+opts.Sessions/100)
	wtTable := newZipfTable(worktrees[:nWorktrees], 1.2)
	for i := range plans {
		p := &plans[i]
		p.index = i
		p.seed = r.Uint64()
		p.worktree = wtTable.draw(r)
		p.codex = r.Float64() < codexShare
		p.lang = pickLanguage(r)
		if r.Float64() < namedShare {
			p.name = sessionName(r)
		}
		if i == bigAt {
			p.big, p.events, p.worktree, p.codex, p.lang = true, opts.Big, worktrees[0], false, langGo
		}
	}
	others := opts.Events - opts.Big
	limit := others
	if opts.Big > 0 {
		limit = max(1, opts.Big/2)
	}
	if err := spreadLengths(r, plans, others, limit); err != nil {
		return nil, nil, err
	}
	plantRare(plans)
	return plans, schedule(r, plans), nil
}

func pickLanguage(r *rand.Rand) language {
	switch x := r.IntN(10); {
	case x < 4:
		return langGo
	case x < 7:
		return langTS
	case x < 9:
		return langPython
	}
	return langRust
}

func sessionName(r *rand.Rand) string {
	t := nameTemplates[r.IntN(len(nameTemplates))]
	subject := techNouns[r.IntN(len(techNouns))]
	if r.IntN(2) == 0 {
		subject += " " + techNouns[r.IntN(len(techNouns))]
	}
	if strings.HasPrefix(t, "[RCR]") {
		subject = worktrees[1+r.IntN(len(worktrees)-1)]
	}
	return upperFirst(strings.Replace(t, "%s", subject, 1))
}

// spreadLengths gives the sessions other than the big one total events in
// all, each between 1 and limit, except a few that stay empty.
func spreadLengths(r *rand.Rand, plans []sessionPlan, total, limit int) error {
	var idx []int
	var w []float64
	for i := range plans {
		if plans[i].big {
			continue
		}
		if r.Float64() < emptyShare && len(plans) > 10 {
			continue
		}
		idx = append(idx, i)
		w = append(w, math.Exp(lengthSigma*r.NormFloat64()))
	}
	if total == 0 {
		return nil
	}
	if len(idx) == 0 {
		return fmt.Errorf("no session to hold %d events besides the big one", total)
	}
	if total > limit*len(idx) {
		return fmt.Errorf("%d events do not fit in %d sessions of at most %d events (half the big session)", total, len(idx), limit)
	}
	if total < len(idx) { // fewer events than sessions: the lightest stay empty
		order := byWeight(w)
		keep := order[:total]
		slices.Sort(keep)
		idx2, w2 := make([]int, 0, total), make([]float64, 0, total)
		for _, k := range keep {
			idx2, w2 = append(idx2, idx[k]), append(w2, w[k])
		}
		idx, w = idx2, w2
	}
	n := scaleLengths(w, total, limit)
	for k, i := range idx {
		plans[i].events = n[k]
	}
	return nil
}

// scaleLengths turns weights into integers in [1, limit] that sum to total,
// proportional to the weights as far as the bounds allow.
func scaleLengths(w []float64, total, limit int) []int {
	count := func(s float64) int {
		sum := 0
		for _, x := range w {
			sum += min(limit, max(1, int(math.Round(s*x))))
		}
		return sum
	}
	lo, hi := 0.0, 1.0
	for count(hi) < total {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if count(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
	}
	n := make([]int, len(w))
	sum := 0
	for i, x := range w {
		n[i] = min(limit, max(1, int(math.Round(hi*x))))
		sum += n[i]
	}
	order := byWeight(w)
	for sum != total { // a few units off: adjust the heaviest sessions
		changed := false
		for _, i := range order {
			switch {
			case sum > total && n[i] > 1:
				n[i]--
				sum--
				changed = true
			case sum < total && n[i] < limit:
				n[i]++
				sum++
				changed = true
			}
			if sum == total {
				break
			}
		}
		if !changed {
			break
		}
	}
	return n
}

// byWeight returns the indexes of w, heaviest first.
func byWeight(w []float64) []int {
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	return order
}

// plantRare assigns each needle of rate 0 to the first prompt of one
// session, spread over the store.
func plantRare(plans []sessionPlan) {
	var used []int
	for i := range plans {
		if plans[i].events > 0 {
			used = append(used, i)
		}
	}
	if len(used) == 0 {
		return
	}
	k := 0
	for _, n := range Needles {
		if n.Rate > 0 {
			continue
		}
		k++
		i := used[(k*len(used)/(len(Needles)+1))%len(used)]
		plans[i].rare = append(plans[i].rare, n.Text)
	}
}

// schedule splits sessions into sittings and orders them on a timeline:
// sessions start in id order, and later sittings follow after random
// breaks.
func schedule(r *rand.Rand, plans []sessionPlan) []sitting {
	var out []sitting
	n := float64(len(plans))
	for i := range plans {
		p := &plans[i]
		k := 1 + p.events/sittingEvents
		if p.events >= 30 && r.Float64() < resumeShare {
			k++
		}
		k = max(1, min(k, p.events/10))
		at := (float64(i) + r.Float64()*0.9) / n
		cuts := splitEvents(r, p.events, k)
		for j, e := range cuts {
			out = append(out, sitting{session: i, events: e, at: at, first: j == 0, last: j == len(cuts)-1})
			at += r.ExpFloat64() * sittingGapMean
		}
	}
	slices.SortStableFunc(out, func(a, b sitting) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.session, b.session)
	})
	return out
}

// splitEvents splits n events into k sittings of at least one event each
// (k == 1 when n is 0).
func splitEvents(r *rand.Rand, n, k int) []int {
	if k <= 1 || n < k {
		return []int{n}
	}
	parts := make([]int, k)
	left := n - k
	for j := range parts {
		parts[j] = 1
	}
	weights := make([]float64, k)
	sum := 0.0
	for j := range weights {
		weights[j] = 0.5 + r.Float64()
		sum += weights[j]
	}
	for j := range parts {
		add := int(float64(left) * weights[j] / sum)
		parts[j] += add
	}
	rest := n
	for _, x := range parts {
		rest -= x
	}
	parts[k-1] += rest
	return parts
}
