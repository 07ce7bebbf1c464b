package visibility

import (
	"bytes"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// LoadConfig reads the ServiceEntry visibility configuration from YAML or JSON in any of the
// shapes it is kept in:
//
//   - a bare serviceEntryVisibility block ({defaultVisibility: NAMESPACE, policies: [...]});
//   - a whole meshConfig ({serviceEntryVisibility: {...}, accessLogFile: ..., ...});
//   - Helm values or an IstioOperator manifest (meshConfig / spec.meshConfig);
//   - the istio ConfigMap, whose data.mesh holds the meshConfig as YAML
//     (kubectl get configmap istio -n istio-system -o yaml).
//
// Several YAML documents may be given (separated by "---"); objects of other kinds are
// skipped, and at most one document may carry the configuration. The block itself is
// decoded strictly (see Config.UnmarshalJSON); errors name the path from the document's root,
// such as spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector.
// The fields of meshConfig other than serviceEntryVisibility are not checked, but a key that
// looks like a misspelling of serviceEntryVisibility is an error, since it would silently
// leave the feature off.
//
// LoadConfig returns a nil *Config, and no error, when the input is a mesh configuration
// without the block: the feature is not configured. It validates what it decodes, so a
// returned Config compiles.
func LoadConfig(data []byte) (*Config, error) {
	docs := splitDocuments(data)
	var (
		found *Config
		where string
		errs  []error
	)
	for i, doc := range docs {
		prefix := ""
		if len(docs) > 1 {
			prefix = fmt.Sprintf("document %d: ", i+1)
		}
		c, loc, err := loadDocument(doc)
		if err != nil {
			errs = append(errs, prefixErrors(prefix, err))
			continue
		}
		if c == nil {
			continue
		}
		if found != nil {
			errs = append(errs, fmt.Errorf("%s%s: a second serviceEntryVisibility configuration; the first is at %s", prefix, loc, where))
			continue
		}
		found, where = c, prefix+loc
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return found, nil
}

// prefixErrors puts prefix before every joined error.
func prefixErrors(prefix string, err error) error {
	if prefix == "" {
		return err
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = fmt.Errorf("%s%w", prefix, e)
	}
	return errors.Join(out...)
}

// splitDocuments splits a YAML stream on its "---" separator lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if t := bytes.TrimRight(line, " \t\r\n"); bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) {
			docs = append(docs, bytes.Clone(cur.Bytes()))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	docs = append(docs, cur.Bytes())
	out := docs[:0]
	for _, d := range docs {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

var (
	blockKeys = []string{defVis, defVisSnake, pols, apply, applySnake}
	blockName = []string{"serviceEntryVisibility", "service_entry_visibility"}
)

// loadDocument finds the configuration in one document and says where it was.
func loadDocument(doc []byte) (*Config, string, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, "", fmt.Errorf("not YAML or JSON: %w", err)
	}
	x, err := decodeAny(j)
	if err != nil {
		return nil, "", fmt.Errorf("not YAML or JSON: %w", err)
	}
	if x == nil {
		return nil, "", nil
	}
	top, ok := x.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("the document must be an object, got %s", jsonType(x))
	}
	kind, _ := top["kind"].(string)
	switch {
	case kind == "IstioOperator":
		spec, _ := top["spec"].(map[string]any)
		mc, ok := spec["meshConfig"]
		if !ok {
			return nil, "", nil
		}
		return fromMeshConfig(mc, field.NewPath("spec", "meshConfig"))
	case kind == "ConfigMap":
		data, _ := top["data"].(map[string]any)
		mesh, ok := data["mesh"]
		if !ok {
			return nil, "", nil
		}
		s, isStr := mesh.(string)
		if !isStr {
			return nil, "", fmt.Errorf("data.mesh: must be a string holding the meshConfig YAML, got %s", jsonType(mesh))
		}
		mj, err := yaml.YAMLToJSON([]byte(s))
		if err != nil {
			return nil, "", fmt.Errorf("data.mesh: not YAML: %w", err)
		}
		mc, err := decodeAny(mj)
		if err != nil {
			return nil, "", fmt.Errorf("data.mesh: %w", err)
		}
		return fromMeshConfig(mc, field.NewPath("data", "mesh"))
	case kind != "":
		return nil, "", nil // another kind of object in a multi-document stream
	}
	if mc, ok := top["meshConfig"]; ok { // Helm values
		return fromMeshConfig(mc, field.NewPath("meshConfig"))
	}
	for _, k := range blockKeys {
		if _, ok := top[k]; ok { // a bare block
			c, errs := decodeConfig(top, nil)
			return checked(c, errs, nil, "the top level")
		}
	}
	return fromMeshConfig(top, nil)
}

// fromMeshConfig extracts serviceEntryVisibility from a meshConfig object at path p.
func fromMeshConfig(mc any, p *field.Path) (*Config, string, error) {
	if mc == nil {
		return nil, "", nil
	}
	m, ok := mc.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%s: the meshConfig must be an object, got %s", pathString(p), jsonType(mc))
	}
	var (
		block any
		name  string
	)
	for _, n := range blockName {
		if v, ok := m[n]; ok {
			if name != "" {
				return nil, "", fmt.Errorf("%s: field given twice, as %q and %q", pathString(p), name, n)
			}
			block, name = v, n
		}
	}
	var errs []error
	for k := range m {
		if k != blockName[0] && k != blockName[1] && looksLike(k, blockName[0]) {
			errs = append(errs, fmt.Errorf("%s: unknown field %q (did you mean %q? as written, the feature stays off)", pathString(p), k, blockName[0]))
		}
	}
	if len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	if name == "" {
		return nil, "", nil
	}
	bp := child(p, name)
	if block == nil { // "serviceEntryVisibility:" with nothing under it configures the defaults
		return &Config{}, bp.String(), nil
	}
	c, errs := decodeConfig(block, bp)
	return checked(c, errs, bp, bp.String())
}

func checked(c *Config, errs []error, p *field.Path, where string) (*Config, string, error) {
	if len(errs) == 0 {
		errs = c.problems(p)
	}
	if len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	return c, where, nil
}

// looksLike reports whether key is a plausible misspelling of want: equal but for case,
// separators, or up to three edits.
func looksLike(key, want string) bool {
	a, b := fold(key), fold(want)
	return a == b || editDistance(a, b) <= 3
}

func editDistance(a, b string) int {
	if d := len(a) - len(b); d > 3 || d < -3 {
		return 4
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
