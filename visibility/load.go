package visibility

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/meshscope/meshscope/internal/strict"
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
			errs = append(errs, strict.Prefix(prefix, err))
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
	x, err := parseYAML(doc)
	if err != nil {
		return nil, "", fmt.Errorf("not YAML or JSON: %w", err)
	}
	if x == nil {
		return nil, "", nil
	}
	top, ok := x.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("the document must be an object, got %s", strict.Describe(x))
	}
	kind, _ := top["kind"].(string)
	switch {
	case kind == "IstioOperator":
		spec, _ := top["spec"].(map[string]any)
		return fromMeshConfig(spec["meshConfig"], "spec.meshConfig")
	case kind == "ConfigMap":
		data, _ := top["data"].(map[string]any)
		mesh, ok := data["mesh"]
		if !ok {
			return nil, "", nil
		}
		s, isStr := mesh.(string)
		if !isStr {
			return nil, "", fmt.Errorf("data.mesh: must be a string holding the meshConfig YAML, got %s", strict.Describe(mesh))
		}
		mc, err := parseYAML([]byte(s))
		if err != nil {
			return nil, "", fmt.Errorf("data.mesh: not YAML: %w", err)
		}
		return fromMeshConfig(mc, "data.mesh")
	case kind != "":
		return nil, "", nil // another kind of object in a multi-document stream
	}
	if mc, ok := top["meshConfig"]; ok { // Helm values
		return fromMeshConfig(mc, "meshConfig")
	}
	for _, k := range blockKeys {
		if _, ok := top[k]; ok { // a bare block
			return decodeChecked(top, "")
		}
	}
	return fromMeshConfig(top, "")
}

func parseYAML(doc []byte) (any, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	return strict.Parse(j)
}

// fromMeshConfig extracts serviceEntryVisibility from a meshConfig object at path.
func fromMeshConfig(mc any, path string) (*Config, string, error) {
	var d strict.Decoder
	o, ok := d.Object(mc, path)
	if !ok {
		return nil, "", d.Err()
	}
	for _, k := range slices.Sorted(maps.Keys(mc.(map[string]any))) {
		if k != blockName[0] && k != blockName[1] && looksLike(k, blockName[0]) {
			d.Errorf(path, "unknown field %q (did you mean %q? as written, the feature stays off)", k, blockName[0])
		}
	}
	block, bp, ok := o.Get(blockName...)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if !ok {
		if _, present := mc.(map[string]any)[blockName[0]]; present { // "serviceEntryVisibility:" alone
			return &Config{}, strict.Child(path, blockName[0]), nil
		}
		if _, present := mc.(map[string]any)[blockName[1]]; present {
			return &Config{}, strict.Child(path, blockName[1]), nil
		}
		return nil, "", nil
	}
	return decodeChecked(block, bp)
}

// decodeChecked decodes a block at path and validates it, naming paths from the document root.
func decodeChecked(block any, path string) (*Config, string, error) {
	var d strict.Decoder
	c := decodeConfig(&d, block, path)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	var root *field.Path
	if path != "" {
		parts := strings.Split(path, ".")
		root = field.NewPath(parts[0], parts[1:]...)
	}
	if errs := c.problems(root); len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	where := path
	if where == "" {
		where = "the top level"
	}
	return c, where, nil
}

// looksLike reports whether key is a plausible misspelling of want: equal but for case,
// separators, or up to three edits.
func looksLike(key, want string) bool {
	return strict.Suggest(key, []string{want}) != "" || strict.EditDistance(strings.ToLower(key), strings.ToLower(want)) <= 3
}
