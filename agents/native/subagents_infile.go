package native

// This file imports the sub-agents whose work an agent keeps inside its
// parent's transcript (Copilot CLI's events.jsonl: the lines with an
// agentId) as sessions of their own, as Claude's sub-agent files are: each
// is recorded under its parent's file as <parent id>/<call id>, gets what
// the file adds to it on later imports, and is linked to its parent's
// session and call (the call id is in its record's id).
//
// The parent's record keeps inFileResumeV1 as its resume: a record
// without it was written before Lazuli imported these sub-agents, so its
// file is read once more (its events are not stored again) for the
// sub-agents it holds, even when the file is unchanged.

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// inFileResumeV1 is the resume of a record whose file's sub-agents were
// imported with it (a parser of these formats keeps no other state).
const inFileResumeV1 = "in-file-subagents-v1\n"

// subagentMarker is a parser whose input carries its sub-agents' work and
// that counts, at any line, how many events each sub-agent has so far.
type subagentMarker interface {
	parse.SubagentSource
	SubagentMarks() map[string]int
}

// inFileID is the native id of the sub-agent that call started in the
// transcript of parent.
func inFileID(parent, call string) string { return parent + "/" + call }

// inFileCall is the parent's call of a sub-agent recorded by inFileID; ""
// for a sub-agent of another kind.
func inFileCall(s store.NativeSubagent) string {
	src, ok := SourceOf(s.Agent)
	if !ok || !src.inFileSubagents || s.ParentNativeID == "" {
		return ""
	}
	call, ok := strings.CutPrefix(s.ID, s.ParentNativeID+"/")
	if !ok || strings.HasPrefix(call, noCallPrefix) {
		return ""
	}
	return call
}

// noCallPrefix names a sub-agent whose start the file does not hold (no
// call id): by its place among the file's sub-agents.
const noCallPrefix = "sub-"

// inFileUpgrades are the main sessions of sessions, of sources that keep
// sub-agents in the parent's file, whose records predate that: their
// files are read again for their sub-agents. One small query each.
func (im *nativeImporter) inFileUpgrades(ctx context.Context, sessions []Session) map[store.NativeKey]bool {
	out := map[store.NativeKey]bool{}
	for _, n := range sessions {
		if !sourceOf(n.Agent).inFileSubagents {
			continue
		}
		rec, ok := im.records[n.Key()]
		if !ok {
			continue
		}
		resume, err := im.st.Native().Resume(ctx, rec.NativeKey, rec.Bytes, rec.Checksum)
		if err == nil && !bytes.HasPrefix(resume, []byte(inFileResumeV1)) {
			out[n.Key()] = true
		}
	}
	return out
}

// inFileRead is what an import stores of the sub-agents a file holds.
type inFileRead struct {
	batches []store.NativeBatch
	owners  []int // index in results of each batch
	results []Result
}

// inFileBatches are the batches and results of the sub-agents read found
// in n's file: a new session for one not recorded (or when reimport makes
// its parent a new session), else what the file added to it.
func (im *nativeImporter) inFileBatches(n Session, read nativeRead, reimport bool, worktree, parentName string) inFileRead {
	var out inFileRead
	for _, s := range read.subagents {
		key := store.NativeKey{Agent: n.Agent, ID: inFileID(n.ID, s.ToolUseID)}
		r := Result{Agent: n.Agent, ID: key.ID, ParentID: n.ID, Path: n.Path, Outcome: Unchanged}
		var prev *store.NativeImport
		if rec, ok := im.records[key]; ok {
			prev, r.SessionID = &rec, rec.SessionID
		}
		fresh := prev == nil || reimport
		events := s.after(!fresh)
		if len(events) == 0 {
			if !fresh {
				out.results = append(out.results, r)
			}
			continue
		}
		b := store.NativeBatch{Key: key, ParentID: n.ID, Path: n.Path,
			Bytes: read.bytes, Lines: read.lines, Checksum: read.checksum, Stat: read.stat,
			Events: events, Prev: prev, Reimport: reimport && prev != nil}
		if fresh {
			created := n.start()
			if !s.Started.IsZero() {
				created = s.Started
			}
			b.Worktree, b.Name, b.Created = worktree, agents.SubagentName(parentName, s.Asked), created.UTC().Format(store.TimeFormat)
		}
		out.owners = append(out.owners, len(out.results))
		out.batches, out.results = append(out.batches, b), append(out.results, r)
	}
	return out
}

// inFileSub is a sub-agent read from its parent's file: all its events,
// and how many of them it had at the line an earlier import ended on.
type inFileSub struct {
	parse.SubagentEvents
	mark int
}

// after are the events an import stores of s: those after its mark when
// the sub-agent was recorded then, without what an import does not store.
func (s inFileSub) after(recorded bool) []codec.Event {
	evs := s.Events
	if recorded {
		evs = evs[min(s.mark, len(evs)):]
	}
	return storedEvents(evs)
}

// inFileSubagents returns the sub-agents p handed out after its Finish,
// each with its count at marks (the line an earlier import ended on). A
// sub-agent whose start the file does not hold is named by its place.
func inFileSubagents(p parse.Parser, marks map[string]int) []inFileSub {
	src, ok := p.(parse.SubagentSource)
	if !ok {
		return nil
	}
	var out []inFileSub
	for i, s := range src.TakeSubagents() {
		mark := marks[s.ToolUseID]
		if s.ToolUseID == "" {
			s.ToolUseID = fmt.Sprintf("%s%d", noCallPrefix, i)
		}
		out = append(out, inFileSub{SubagentEvents: s, mark: mark})
	}
	return out
}
