package genstore

import (
	"path"
	"strings"
)

// language is the programming language of a session's project.
type language int

const (
	langGo language = iota
	langTS
	langPython
	langRust
)

func (l language) ext() string {
	return [...]string{".go", ".ts", ".py", ".rs"}[l]
}

func (l language) fence() string {
	return [...]string{"go", "ts", "python", "rust"}[l]
}

// project is the repository a session works in: its folder, files and
// identifiers, so that a session keeps coming back to the same names as a
// real one does.
type project struct {
	lang   language
	name   string
	org    string
	user   string
	root   string // the absolute working folder
	module string // Go module path, npm package or Python package name
	dirs   []string
	files  []string // relative to root
	idents []string // function and method names
	types  []string
	tests  []string // test names
	fields []string
}

func newProject(g *textGen, lang language) *project {
	p := &project{lang: lang, name: g.pick(projects), org: g.pick(orgs), user: g.pick(people)}
	p.root = "/home/" + p.user + "/src/" + p.name
	switch lang {
	case langGo:
		p.module = "github.com/" + p.org + "/" + p.name
	case langTS:
		p.module = "@" + p.org + "/" + p.name
	default:
		p.module = p.name
	}
	for range g.between(4, 9) {
		p.dirs = append(p.dirs, p.dir(g))
	}
	for range g.between(20, 60) {
		p.files = append(p.files, p.newFile(g))
	}
	for range g.between(40, 120) {
		p.idents = append(p.idents, p.newIdent(g))
	}
	for range g.between(10, 30) {
		p.types = append(p.types, upperFirst(g.noun())+upperFirst(g.noun()))
	}
	for range g.between(10, 40) {
		p.tests = append(p.tests, p.newTest(g))
	}
	for range g.between(8, 20) {
		p.fields = append(p.fields, p.caseName(g.noun(), g.noun()))
	}
	return p
}

// dir returns a plausible source folder for the language.
func (p *project) dir(g *textGen) string {
	n := g.noun()
	switch p.lang {
	case langGo:
		if g.chance(0.3) {
			return "internal/" + n
		}
		return n
	case langTS:
		return g.pick([]string{"src", "src/components", "src/lib", "src/hooks", "src/api", "packages/" + n + "/src"}) + "/" + n
	case langPython:
		return p.name + "/" + n
	}
	return g.pick([]string{"src", "src/" + n, "crates/" + n + "/src"})
}

func (p *project) newFile(g *textGen) string {
	d := p.dirs[g.intn(len(p.dirs))]
	base := g.noun()
	if g.chance(0.4) {
		base += "_" + g.noun()
	}
	if p.lang == langTS {
		base = strings.ReplaceAll(base, "_", "-")
	}
	if g.chance(0.25) {
		switch p.lang {
		case langGo:
			base += "_test"
		case langTS:
			base += ".test"
		case langPython:
			d, base = "tests", "test_"+base
		}
	}
	return d + "/" + base + p.lang.ext()
}

func (p *project) caseName(a, b string) string {
	if p.lang == langPython || p.lang == langRust {
		return a + "_" + b
	}
	return a + upperFirst(b)
}

func (p *project) newIdent(g *textGen) string {
	name := p.caseName(g.verb(), g.noun())
	if g.chance(0.3) {
		if p.lang == langPython || p.lang == langRust {
			name += "_" + g.noun()
		} else {
			name += upperFirst(g.noun())
		}
	}
	if p.lang == langGo && g.chance(0.5) {
		name = upperFirst(name)
	}
	return name
}

func (p *project) newTest(g *textGen) string {
	switch p.lang {
	case langGo:
		return "Test" + upperFirst(g.noun()) + upperFirst(g.verb()) + "_" + upperFirst(g.word())
	case langPython, langRust:
		return "test_" + g.verb() + "_" + g.noun() + "_" + g.word()
	}
	return thirdPerson(g.verb()) + " " + g.words(g.between(2, 5))
}

// skewed returns an index in [0, n) that favours the first entries, so
// a few files and names dominate a session as they do in real work.
func skewed(g *textGen, n int) int {
	u := g.r.Float64()
	return int(u * u * float64(n))
}

func (p *project) ident(g *textGen) string { return p.idents[skewed(g, len(p.idents))] }
func (p *project) typ(g *textGen) string   { return p.types[skewed(g, len(p.types))] }
func (p *project) file(g *textGen) string  { return p.files[skewed(g, len(p.files))] }
func (p *project) test(g *textGen) string  { return p.tests[skewed(g, len(p.tests))] }
func (p *project) field(g *textGen) string { return p.fields[skewed(g, len(p.fields))] }

// abs returns the absolute path of a project file.
func (p *project) abs(rel string) string { return path.Join(p.root, rel) }

// pkgOf returns the import path or module of a relative file's folder.
func (p *project) pkgOf(rel string) string {
	switch p.lang {
	case langGo:
		return p.module + "/" + path.Dir(rel)
	case langPython:
		return strings.ReplaceAll(strings.TrimSuffix(rel, ".py"), "/", ".")
	}
	return path.Dir(rel)
}
