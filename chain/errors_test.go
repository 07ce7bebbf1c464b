package chain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

func TestErrorSentinels(t *testing.T) {
	req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: "td.consul"}
	tests := []struct {
		name    string
		req     Request
		entries Entries
		want    error
	}{
		{"redirect cycle", req, Entries{Resolvers: []ServiceResolver{
			{Name: "main", Redirect: &Redirect{Service: "other"}}, {Name: "other", Redirect: &Redirect{Service: "main"}}}}, ErrRedirectCycle},
		{"unknown subset", req, Entries{Resolvers: []ServiceResolver{{Name: "main", Redirect: &Redirect{Service: "other", ServiceSubset: "v9"}}}}, errUnknownSubset},
		{"protocol mismatch", req, Entries{Resolvers: []ServiceResolver{{Name: "main", Redirect: &Redirect{Service: "other"}}},
			Protocols: map[exports.ServiceName]string{{Name: "main"}: "http"}}, ErrProtocolMismatch},
		{"duplicate resolver", req, Entries{Resolvers: []ServiceResolver{{Name: "main"}, {Name: "main", Namespace: "default"}}}, errDuplicate},
		{"incomplete request", Request{Service: exports.ServiceName{Name: "main"}}, Entries{}, errRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.req, tt.entries)
			require.ErrorIs(t, err, tt.want)
			for _, e := range fielderr.Split(err) {
				var fe *FieldError
				assert.ErrorAs(t, e, &fe, "every problem is a FieldError")
			}
		})
	}
}

func TestErrorStructure(t *testing.T) {
	_, err := NewCompiler(Entries{Resolvers: []ServiceResolver{
		{Name: "web", Subsets: map[string]Subset{"V1": {}}, DefaultSubset: "v2"},
		{Name: "api"},
		{Name: "api", Partition: "default"},
	}})
	require.Error(t, err)
	var got []FieldError
	for _, e := range fielderr.Split(err) {
		got = append(got, *e.(*FieldError))
	}
	want := []FieldError{
		{Where: "Resolvers[0] (default/default/web)", Field: `Subsets["V1"]`},
		{Where: "Resolvers[0] (default/default/web)", Field: "DefaultSubset"},
		{Where: "Resolvers[2] (default/default/api)", Value: "default/default/api", Err: errDuplicate},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(FieldError{}, "Detail"), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
