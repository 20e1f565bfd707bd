package app

import (
	"context"
	"log"
	"time"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/views"
)

// chronicleWindow is an open chronicle report window; it implements
// views.ChronicleActions. Reports are written in the background, one at a
// time per window; a report asked for later replaces one still being
// written.
type chronicleWindow struct {
	pw     *projectWindow
	win    fyne.Window
	report chronicle.Report
	since  string // the period: 24h, 7d, 30d or all (Fyne goroutine only)
	view   *views.ChronicleView
	gen    int // bumps on every Regenerate; an older answer is dropped (Fyne goroutine only)
	runner chronicle.Runner
}

// chronicleMenu is the Chronicle menu: one window per report.
func (tl *toolWindows) chronicleMenu() *fyne.Menu {
	m := fyne.NewMenu("Chronicle")
	for _, r := range chronicle.Reports {
		label := r.Title() + "…"
		if r == chronicle.Standup {
			label = "Standup (last 24 hours)…"
		}
		m.Items = append(m.Items, fyne.NewMenuItem(label, func() { tl.showChronicle(r) }))
	}
	return m
}

// showChronicle opens a window with report r, written by the agent CLI
// the sessions used (else the built-in writer).
func (tl *toolWindows) showChronicle(r chronicle.Report) *chronicleWindow {
	pw := tl.pw
	w := pw.newToolWindow("Chronicle — " + r.Title())
	cw := &chronicleWindow{pw: pw, win: w, report: r, since: r.DefaultSince(), runner: agents.ScratchRunner{Config: pw.ui.agentConfig()}}
	// The Agent menu offers the built-in writer and every backend the app runs.
	cw.view = views.NewChronicleView(w, cw, cw.since, append([]string{string(chronicle.AgentBuiltin)}, agents.BackendNames()...))
	w.SetContent(cw.view.Object())
	w.Resize(fyne.NewSize(900, 700))
	w.Show()
	cw.write(chronicle.AgentAuto)
	return cw
}

// write has the report written by agent in the background and shows it.
func (cw *chronicleWindow) write(agent chronicle.Agent) {
	pw := cw.pw
	cw.gen++
	gen, since := cw.gen, cw.since
	cw.view.Busy(string(agent))
	pw.wg.Go(func() {
		res, err := cw.generate(pw.ctx, agent, since)
		if err != nil && pw.ctx.Err() == nil {
			log.Printf("chronicle %s: %v", cw.report, err)
		}
		onUI(func() {
			if gen != cw.gen {
				return
			}
			if err != nil {
				cw.view.ShowError(err)
				return
			}
			cw.view.Show(views.ChronicleReport{Name: string(cw.report), Title: cw.report.Title(), Agent: res.Agent, Markdown: res.Markdown,
				Sessions: res.Sessions, Unresolved: res.Unresolved, Fallback: res.Fallback, Legend: res.Legend})
		})
	})
}

// generate gathers the facts over every store of the window and writes
// the report.
func (cw *chronicleWindow) generate(ctx context.Context, agent chronicle.Agent, since string) (chronicle.Result, error) {
	var sources []chronicle.Source
	for _, x := range cw.pw.search.insightIndexes(ctx, nil) {
		sources = append(sources, chronicle.Source{Store: x.Store(), Index: x})
	}
	win, err := chronicle.ParseSince(since, time.Now())
	if err != nil {
		return chronicle.Result{}, err
	}
	opts := chronicle.Options{Window: win}
	if len(cw.pw.wts) > 0 {
		opts.ProjectDir = cw.pw.wts[0].Dir
	}
	facts, err := chronicle.Gather(ctx, sources, cw.report, opts)
	if err != nil {
		return chronicle.Result{}, err
	}
	return chronicle.Write(ctx, sources, facts, agent, cw.runner)
}

// Regenerate writes the report again with another agent or period.
func (cw *chronicleWindow) Regenerate(agent, since string) {
	a, err := chronicle.ParseAgent(agent, agents.BackendNames())
	if err != nil {
		cw.view.ShowError(err)
		return
	}
	cw.since = since
	cw.write(a)
}

// OpenLink opens a link of the report: a citation shows its session (at
// the event) in the project window once the user has confirmed it in the
// report's window; a web address opens in the browser.
func (cw *chronicleWindow) OpenLink(link string) {
	cw.pw.shown.openLinkFrom(cw.win, link)
}
