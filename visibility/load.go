package visibility

import (
	"errors"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/meshfile"
	"github.com/meshscope/meshscope/internal/strict"
)

// LoadConfig reads the ServiceEntry visibility configuration from YAML or JSON in any of the
// shapes it is kept in, alone, in a multi-document stream, or inside a List (what
// `kubectl get … -o yaml` prints):
//
//   - an IstioOperator: spec.meshConfig, or spec.values.meshConfig;
//   - the istio ConfigMap (named istio, or istio-<revision>), whose data.mesh holds the
//     meshConfig as YAML (kubectl get configmap istio -n istio-system -o yaml); other
//     ConfigMaps are skipped;
//   - Helm values: meshConfig, or values.meshConfig;
//   - a whole meshConfig ({serviceEntryVisibility: {...}, accessLogFile: ..., ...});
//   - a bare serviceEntryVisibility block ({defaultVisibility: NAMESPACE, policies: [...]}).
//
// Objects of other kinds are skipped, and at most one place may carry the block. The block
// itself is decoded strictly (see Config.UnmarshalJSON); errors name the document, the List
// item and the path from the object's root, such as
// "items[0]: spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector".
// The fields of meshConfig other than serviceEntryVisibility are not checked (package
// visibility/mesh reads them), but a key or kind that looks like a misspelling of one that
// would carry the configuration (serviceEntryVisiblity, meshconfig, data.Mesh, kind:
// istiooperator) is an error, since it would silently leave the feature off, and so is a
// field of the block in meshConfig itself (defaultVisibility beside serviceEntryVisibility)
// or a misspelt one that would have made a bare block (defaultVisiblity). So is a key given
// twice.
//
// LoadConfig returns a nil *Config, and no error, when the input holds a mesh configuration
// without the block, or with serviceEntryVisibility: null (an empty value in YAML), as in
// Istio: the feature is not configured. Input that holds no mesh configuration at all —
// empty input, only objects of other kinds — is an error saying what it holds (wrapping
// ErrNoMeshConfig). LoadConfig validates what it decodes, so a returned Config compiles.
func LoadConfig(data []byte) (*Config, error) {
	return meshfile.LoadOne(data, "serviceEntryVisibility configuration", func(d meshfile.Doc) (*Config, string, error) {
		block, path, found, err := meshfile.Block(d)
		if !found {
			return nil, "", err
		}
		c, loc, derr := decodeChecked(block, path)
		if err != nil || derr != nil {
			return nil, "", errors.Join(err, derr)
		}
		return c, loc, nil
	})
}

// decodeChecked decodes a block at path and validates it, naming paths from the document root.
func decodeChecked(block any, path string) (*Config, string, error) {
	var d strict.Decoder
	c := decodeConfig(&d, block, path)
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if errs := c.problems(fielderr.Dotted(path)); len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	where := path
	if where == "" {
		where = "the top level"
	}
	return c, where, nil
}
