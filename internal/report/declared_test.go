package report

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// declaredCode is one declaration of a code in the module's source: var Name =
// report.NewCode("Name", report.Level).
type declaredCode struct {
	name, level, doc string
	at               token.Position
}

// TestCodesDeclaredOnce reads every package of the module (its non-test source) and holds
// each code to the convention NewCode documents: a package-level variable of the code's
// own name, whose documentation starts "Name (level" followed by ")" or "," and gives the
// level it is declared with, each name declared once in the module. So a code's name, level
// and documentation are one declaration, and a finding's level is the one its code's
// documentation promises.
func TestCodesDeclaredOnce(t *testing.T) {
	root, module := moduleRoot(t)
	codes, problems := declaredCodes(t, root, module)
	require.NotEmpty(t, codes, "no code declared under %s: the walk is broken", root)
	t.Logf("%d codes declared under %s", len(codes), root)
	for name, ds := range codes {
		if len(ds) > 1 {
			problems = append(problems, fmt.Sprintf("code %s declared %d times: %s", name, len(ds), positions(ds)))
		}
		for _, d := range ds {
			if want := docLevel(d); want != d.level {
				problems = append(problems, fmt.Sprintf("%s: %s is declared %s, but its documentation says %q", d.at, name, d.level, firstLine(d.doc)))
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		t.Errorf("%d problems with the codes' declarations:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestDocLevel holds docLevel to the forms the codes' documentation takes.
func TestDocLevel(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"Shadowed", "Shadowed (warning): an earlier policy …", "Warning"},
		{"GatewayScopeOrderDependent", "GatewayScopeOrderDependent (warning, in a gateway's Notes): …", "Warning"},
		{"Redundant", "Redundant (note): the policy gives …", "Note"},
		{"Shadowed", "Shadowed (error) …", "Error"},
		{"Shadowed", "Shadowed: an earlier policy …", ""},
		{"Shadowed", "Shadowed (warnings): …", ""},
		{"Shadowed", "Other (warning): …", ""},
		{"Shadowed", "shadowed (warning): …", ""},
		{"Shadowed", "", ""},
	} {
		assert.Equal(t, tc.want, docLevel(declaredCode{name: tc.name, doc: tc.doc}), tc.doc)
	}
}

// docLevelRE reads the level a code's documentation opens with: "Name (warning)" or
// "Name (warning, in a gateway's Notes)".
var docLevelRE = regexp.MustCompile(`^(\w+) \((note|warning|error)[),]`)

// docLevel is the level d's documentation gives d, spelled as its Level constant ("Warning"),
// "" when it does not open with "Name (level".
func docLevel(d declaredCode) string {
	m := docLevelRE.FindStringSubmatch(d.doc)
	if m == nil || m[1] != d.name {
		return ""
	}
	return strings.ToUpper(m[2][:1]) + m[2][1:]
}

// moduleRoot is the directory of the module's go.mod, above this package's, and the
// module's path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test's directory")
		dir = parent
	}
}

// declaredCodes returns every code declared in the module's non-test source under root, by
// name, and the calls of NewCode that are no such declaration. Package report itself
// (which builds codes read back from JSON) and testdata are not read.
func declaredCodes(t *testing.T, root, module string) (map[string][]declaredCode, []string) {
	t.Helper()
	self, err := filepath.Abs(".")
	require.NoError(t, err)
	codes := map[string][]declaredCode{}
	var problems []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && (e.Name() == "testdata" || e.Name() == "vendor" || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") || path == self) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(src), "NewCode") {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ds, ps := fileCodes(fset, f, module+"/internal/report")
		for _, d := range ds {
			codes[d.name] = append(codes[d.name], d)
		}
		problems = append(problems, ps...)
		return nil
	})
	require.NoError(t, err)
	return codes, problems
}

// fileCodes returns the codes f declares and its calls of NewCode that are not a
// declaration of one: the value of a package-level variable, one per name, whose name is
// the code's (a string literal) and whose level is one of report's constants.
func fileCodes(fset *token.FileSet, f *ast.File, reportPath string) ([]declaredCode, []string) {
	pkg := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == reportPath {
			pkg = "report"
			if im.Name != nil {
				pkg = im.Name.Name
			}
		}
	}
	if pkg == "" {
		return nil, nil
	}
	isReport := func(e ast.Expr, name string) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := s.X.(*ast.Ident)
		return ok && x.Name == pkg && (name == "" || s.Sel.Name == name)
	}
	var out []declaredCode
	var problems []string
	declared := map[*ast.CallExpr]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || len(vs.Values) != 1 {
				continue
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if !ok || !isReport(call.Fun, "NewCode") || len(call.Args) != 2 {
				continue
			}
			name := ""
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ = strconv.Unquote(lit.Value)
			}
			lvl, lok := call.Args[1].(*ast.SelectorExpr)
			at := fset.Position(vs.Pos())
			declared[call] = true
			switch {
			case name == "":
				problems = append(problems, fmt.Sprintf("%s: %s: the code's name is not a string literal", at, vs.Names[0].Name))
				continue
			case name != vs.Names[0].Name:
				problems = append(problems, fmt.Sprintf("%s: variable %s declares code %q: the variable is named as its code", at, vs.Names[0].Name, name))
				continue
			case !lok || !isReport(lvl, "") || (lvl.Sel.Name != "Note" && lvl.Sel.Name != "Warning" && lvl.Sel.Name != "Error"):
				problems = append(problems, fmt.Sprintf("%s: %s: the level is not report.Note, report.Warning or report.Error", at, name))
				continue
			}
			doc := vs.Doc
			if doc == nil && !g.Lparen.IsValid() {
				doc = g.Doc
			}
			out = append(out, declaredCode{name: name, level: lvl.Sel.Name, doc: doc.Text(), at: at})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isReport(call.Fun, "NewCode") && !declared[call] {
			problems = append(problems, fmt.Sprintf("%s: report.NewCode outside a code's declaration (a package-level var Name = report.NewCode(\"Name\", report.Level))", fset.Position(call.Pos())))
		}
		return true
	})
	return out, problems
}

func positions(ds []declaredCode) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.at.String())
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
