package inventory

import (
	"reflect"
	"testing"

	"github.com/meshscope/meshscope/internal/release"
)

// FuzzApply: Apply never panics; over a dump Load accepts, a dump it returns is one Load
// accepts, and applying nothing changes nothing Load reads.
func FuzzApply(f *testing.F) {
	seed := seeds(f)
	for _, s := range seed {
		f.Add(s, []byte(applyBase), "")
		f.Add([]byte(applyBase), s, "shop")
	}
	f.Add([]byte(applyBase), []byte("kind: Sidecar\napiVersion: networking.istio.io/v1\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['~payments/*']}]}\n"), "1.30")
	f.Fuzz(func(t *testing.T, base, file []byte, istio string) {
		r := release.Make(istio, "", nil)
		merged, applied, err := Apply(File{"base", base}, "", r, File{"file", file})
		want, baseErr := Load(base, "")
		if err != nil || baseErr != nil {
			return
		}
		if _, err := Load(merged, ""); err != nil {
			t.Fatalf("Load refuses what Apply gave over a dump it accepts: %v", err)
		}
		if len(applied) == 0 {
			t.Fatalf("Apply accepted a file and applied nothing")
		}
		nothing, _, err := Apply(File{"base", base}, "", r)
		if err != nil {
			t.Fatalf("Apply of no file refuses a dump Load accepts: %v", err)
		}
		if again, err := Load(nothing, ""); err != nil || !reflect.DeepEqual(want, again) {
			t.Fatalf("Apply of no file changes the dump: %v", err)
		}
	})
}
