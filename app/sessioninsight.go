package app

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// The shown session's insight: the header's usage, the completion rows'
// turn usage, the Files tab and the ref chips, from the insight index.

// showSessionInsight shows what the insight index knows of ref: its
// tokens and cost in the header and on its completion rows, its Files tab
// and its ref chips. It runs on the goroutine that loaded the session,
// after the session is shown (one goroutine at a time touches the
// header), and after a run of the shown session ends.
func (sh *shownSession) showSessionInsight(ref views.SessionRef) {
	if sh.pw.search == nil {
		return // a window without background indexing (tests)
	}
	st, err := sh.pw.store(ref.StorePath)
	if err != nil || !st.Exists() {
		return
	}
	x := sh.pw.search.insight.update(sh.pw.ctx, st)
	if x == nil {
		return
	}
	in, err := sessionInsight(sh.pw.ctx, x, ref)
	if err != nil {
		log.Printf("insight of %s S%d: %v", ref.StorePath, ref.ID, err)
		return
	}
	onUI(func() { sh.pw.mv.SetSessionInsight(ref, in) })
}

// sessionInsight reads what the index x knows of session ref.
func sessionInsight(ctx context.Context, x *insight.Index, ref views.SessionRef) (views.SessionInsight, error) {
	var in views.SessionInsight
	rows, err := x.Usage().Stats(ctx, insight.StatsQuery{Session: ref.ID})
	if err != nil {
		return in, err
	}
	if len(rows) > 0 {
		in.Usage = usageText(rows[0].Tokens)
	}
	turns, err := x.Usage().ByTurn(ctx, ref.ID)
	if err != nil {
		return in, err
	}
	for _, t := range turns {
		in.Turns = append(in.Turns, views.TurnUsage{FirstSeq: t.FirstSeq, LastSeq: t.LastSeq, Input: t.Input, Output: t.Output,
			Cache: t.CacheRead + t.CacheWrite, CostUSD: t.CostUSD, Estimated: t.CostEstimated})
	}
	files, err := x.Files().List(ctx, ref.ID)
	if err != nil {
		return in, err
	}
	in.Files = insightFiles(x, files)
	refs, err := x.Refs().List(ctx, ref.ID)
	if err != nil {
		return in, err
	}
	for _, r := range refs {
		in.Refs = append(in.Refs, views.RefChip{Kind: r.Kind, Value: r.Value, URL: r.URL})
	}
	return in, nil
}

// insightFiles turns the index's file rows into the views' (paths in
// the order the index lists them: most recent first).
func insightFiles(x *insight.Index, files []insight.FileRow) []views.InsightFile {
	out := make([]views.InsightFile, 0, len(files))
	for _, f := range files {
		id, _ := strconv.ParseInt(strings.TrimPrefix(f.Session, "S"), 10, 64) // written by Files as S<n>
		out = append(out, views.InsightFile{Store: x.Store().Path(), SessionID: id, Path: f.Path, Action: f.Action, Count: f.Count})
	}
	return out
}

// LoadFileDiffs shows every change of a file of the shown session in its
// Files tab.
func (sh *shownSession) LoadFileDiffs(f views.InsightFile) {
	pw := sh.pw
	pw.wg.Go(func() {
		diffs, err := fileDiffs(pw.ctx, pw, f)
		if err != nil {
			pw.showError("file changes", err)
			return
		}
		onUI(func() { pw.mv.SessionFiles().ShowDiffs(f.Path, diffs) })
	})
}

// OpenRef opens a ref chip's address in the browser, or copies its value
// when it has none (a commit of a remote that is not on GitHub or GitLab,
// a branch).
func (sh *shownSession) OpenRef(r views.RefChip) {
	pw := sh.pw
	if r.URL == "" {
		pw.ui.fa.Clipboard().SetContent(r.Value)
		pw.status.set(sh.ref(), fmt.Sprintf("Copied %s to the clipboard.", r.Value), false) // the chips are the shown session's
		return
	}
	pw.openWebOrCopy("open ref", r.URL)
}

// usageText is a session's usage for the header; "" without usage.
func usageText(t store.Tokens) string {
	if t.Total() == 0 && t.CostUSD == 0 {
		return ""
	}
	cost := display.USD(t.CostUSD)
	if t.CostEstimated {
		cost = "~" + cost
	}
	return fmt.Sprintf("%s in · %s out · %s cache · %s", display.Short(t.Input), display.Short(t.Output),
		display.Short(t.CacheRead+t.CacheWrite), cost)
}
