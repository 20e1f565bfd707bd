package genstore

import (
	"strings"
)

// varNames are local variable names, shared by every language.
var varNames = strings.Fields(`n b buf err ctx rows row key val item items out res req resp s id ids
	name cfg opts m seen total start end off size line lines entry entries next prev cur node batch`)

// codeWriter appends source lines in one language with indentation.
type codeWriter struct {
	g     *textGen
	p     *project
	b     strings.Builder
	lines int
	depth int
}

func (w *codeWriter) line(s string) {
	for range w.depth {
		switch w.p.lang {
		case langGo:
			w.b.WriteByte('\t')
		case langTS:
			w.b.WriteString("  ")
		default:
			w.b.WriteString("    ")
		}
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
	w.lines++
}

func (w *codeWriter) v() string { return w.g.pick(varNames) }

// block writes an opening line, a nested body and the closing line.
func (w *codeWriter) block(open string, body int) {
	w.line(open)
	w.depth++
	for range max(1, body) {
		w.stmt(false)
	}
	w.depth--
	switch w.p.lang {
	case langPython:
	default:
		w.line("}")
	}
}

// stmt writes one statement, possibly a nested block when nest is allowed
// and the depth is small.
func (w *codeWriter) stmt(top bool) {
	g, p := w.g, w.p
	nest := top || w.depth < 3
	x := g.intn(100)
	if !nest && x >= 60 {
		x = g.intn(60)
	}
	a, bv := w.v(), w.v()
	id, f, t := p.ident(g), p.field(g), p.typ(g)
	msg := g.verb() + " " + g.noun()
	switch p.lang {
	case langGo:
		switch {
		case x < 15:
			w.line(a + ", err := " + bv + "." + id + "(ctx, " + w.v() + ")")
			w.line("if err != nil {")
			w.depth++
			w.line(`return nil, fmt.Errorf("` + msg + `: %w", err)`)
			w.depth--
			w.line("}")
		case x < 25:
			w.line(a + " := " + id + "(" + bv + ", " + g.num(0, 64) + ")")
		case x < 33:
			w.line(a + "." + upperFirst(f) + " = append(" + a + "." + upperFirst(f) + ", " + bv + ")")
		case x < 40:
			w.line("// " + upperFirst(g.words(g.between(4, 12))) + ".")
		case x < 45:
			w.line(`log.Printf("` + msg + `: %v", ` + a + `)`)
		case x < 50:
			w.line("defer " + a + ".Close()")
		case x < 60:
			w.line("return " + a + ", nil")
		case x < 72:
			w.block("for _, "+a+" := range "+bv+" {", g.between(1, 4))
		case x < 85:
			w.block("if len("+a+") > "+g.num(0, 128)+" {", g.between(1, 3))
		case x < 93:
			w.block("if "+a+" == nil {", 1)
		default:
			w.line("switch " + a + "." + upperFirst(f) + " {")
			w.line("case " + t + upperFirst(g.noun()) + ":")
			w.depth++
			for range g.between(1, 3) {
				w.stmt(false)
			}
			w.depth--
			w.line("}")
		}
	case langTS:
		switch {
		case x < 15:
			w.line("const " + a + " = await " + id + "(" + bv + "." + f + ");")
		case x < 25:
			w.line("const " + a + ": " + t + " = " + id + "(" + bv + ", " + g.num(0, 64) + ");")
		case x < 33:
			w.line(a + "." + f + ".push(" + bv + ");")
		case x < 40:
			w.line("// " + upperFirst(g.words(g.between(4, 12))) + ".")
		case x < 45:
			w.line("console.debug(`" + msg + ": ${" + a + "}`);")
		case x < 50:
			w.line("throw new Error(`" + msg + " failed: ${" + a + "." + f + "}`);")
		case x < 60:
			w.line("return " + a + ";")
		case x < 72:
			w.block("for (const "+a+" of "+bv+") {", g.between(1, 4))
		case x < 85:
			w.block("if ("+a+"."+f+" > "+g.num(0, 128)+") {", g.between(1, 3))
		case x < 93:
			w.block("if (!"+a+") {", 1)
		default:
			w.block("try {", g.between(1, 3))
		}
	case langPython:
		switch {
		case x < 15:
			w.line(a + " = self." + id + "(" + bv + ")")
		case x < 25:
			w.line(a + " = " + id + "(" + bv + ", " + f + "=" + g.num(0, 64) + ")")
		case x < 33:
			w.line(a + "." + f + ".append(" + bv + ")")
		case x < 40:
			w.line("# " + upperFirst(g.words(g.between(4, 12))) + ".")
		case x < 45:
			w.line(`logger.debug("` + msg + `: %s", ` + a + `)`)
		case x < 50:
			w.line(`raise ValueError(f"` + msg + ` failed: {` + a + `!r}")`)
		case x < 60:
			w.line("return " + a)
		case x < 72:
			w.block("for "+a+" in "+bv+":", g.between(1, 4))
		case x < 85:
			w.block("if len("+a+") > "+g.num(0, 128)+":", g.between(1, 3))
		case x < 93:
			w.block("if "+a+" is None:", 1)
		default:
			w.block("with self."+f+":", g.between(1, 3))
		}
	default:
		switch {
		case x < 15:
			w.line("let " + a + " = self." + id + "(&" + bv + ")?;")
		case x < 25:
			w.line("let mut " + a + " = " + t + "::new(" + g.num(0, 64) + ");")
		case x < 33:
			w.line(a + "." + f + ".push(" + bv + ".clone());")
		case x < 40:
			w.line("// " + upperFirst(g.words(g.between(4, 12))) + ".")
		case x < 45:
			w.line(`tracing::debug!("` + msg + `: {:?}", ` + a + `);`)
		case x < 50:
			w.line(`return Err(anyhow!("` + msg + ` failed: {}", ` + a + `));`)
		case x < 60:
			w.line("Ok(" + a + ")")
		case x < 72:
			w.block("for "+a+" in "+bv+".iter() {", g.between(1, 4))
		case x < 85:
			w.block("if "+a+".len() > "+g.num(0, 128)+" {", g.between(1, 3))
		case x < 93:
			w.block("if let Some("+a+") = "+bv+" {", 1)
		default:
			w.block("match "+a+" {", g.between(1, 3))
		}
	}
}

// function writes one documented function of about body statements.
func (w *codeWriter) function(body int) {
	g, p := w.g, w.p
	name, t, a := p.ident(g), p.typ(g), w.v()
	doc := thirdPerson(g.verb()) + " the " + g.noun() + " " + g.words(g.between(3, 10)) + "."
	switch p.lang {
	case langGo:
		w.line("// " + name + " " + doc)
		w.line("func (s *" + t + ") " + name + "(ctx context.Context, " + a + " []" + p.typ(g) + ") (*" + t + ", error) {")
	case langTS:
		w.line("/** " + upperFirst(doc) + " */")
		w.line("export async function " + name + "(" + a + ": " + t + ", options?: " + p.typ(g) + "): Promise<" + t + "> {")
	case langPython:
		w.line("def " + name + "(self, " + a + ": " + t + ", *, limit: int = " + g.num(1, 500) + ") -> " + p.typ(g) + ":")
		w.depth++
		w.line(`"""` + upperFirst(doc) + `"""`)
		w.depth--
	default:
		w.line("/// " + upperFirst(doc))
		w.line("pub fn " + name + "(&self, " + a + ": &" + t + ") -> Result<" + p.typ(g) + "> {")
	}
	w.depth++
	for range max(1, body) {
		w.stmt(true)
	}
	w.depth--
	if p.lang != langPython {
		w.line("}")
	}
	w.line("")
}

// header writes what a source file starts with.
func (w *codeWriter) header(rel string) {
	g, p := w.g, w.p
	switch p.lang {
	case langGo:
		w.line("package " + lastElem(p.pkgOf(rel)))
		w.line("")
		w.line("import (")
		for _, imp := range []string{`"context"`, `"fmt"`, `"log"`, `"` + p.module + "/" + p.dir(g) + `"`} {
			w.line("\t" + imp)
		}
		w.line(")")
	case langTS:
		w.line("import { " + p.ident(g) + ", " + p.typ(g) + " } from './" + g.noun() + "';")
		w.line("import type { " + p.typ(g) + " } from '../" + g.noun() + "/types';")
	case langPython:
		w.line(`"""` + upperFirst(g.words(g.between(4, 10))) + `."""`)
		w.line("from __future__ import annotations")
		w.line("")
		w.line("import logging")
		w.line("from " + p.module + "." + g.noun() + " import " + p.typ(g))
		w.line("")
		w.line("logger = logging.getLogger(__name__)")
	default:
		w.line("use anyhow::{anyhow, Result};")
		w.line("use crate::" + g.noun() + "::" + p.typ(g) + ";")
	}
	w.line("")
}

func lastElem(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// code returns about n lines of functions.
func (p *project) code(g *textGen, n int) string {
	w := &codeWriter{g: g, p: p}
	for w.lines < n {
		w.function(g.between(2, 6))
	}
	return cutLines(w.b.String(), n)
}

// sourceFile returns a whole source file of about n lines.
func (p *project) sourceFile(g *textGen, rel string, n int) string {
	w := &codeWriter{g: g, p: p}
	w.header(rel)
	for w.lines < n {
		w.function(g.between(2, 8))
	}
	return w.b.String()
}

// codeBlock returns a fenced markdown code block of about n lines.
func (p *project) codeBlock(g *textGen, n int) string {
	return "```" + p.lang.fence() + "\n" + strings.TrimRight(p.code(g, n), "\n") + "\n```"
}

// cutLines keeps the first n lines of s.
func cutLines(s string, n int) string {
	i := 0
	for range n {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i]
}
