package intentions

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     ConfigEntry
		err      string // every problem, joined
	}{
		{
			name: "as consul config read prints it",
			in: `{"Kind": "service-intentions", "Name": "api", "Sources": [{"Name": "web", "Action": "allow", "Precedence": 9,
			  "Type": "consul"}], "Meta": {"team": "a"}, "CreateIndex": 5, "ModifyIndex": 7}`,
			want: ConfigEntry{Kind: Kind, Name: "api", Sources: []SourceIntention{{Name: "web", Action: Allow, Precedence: 9, Type: "consul"}},
				Meta: map[string]string{"team": "a"}, CreateIndex: 5, ModifyIndex: 7},
		},
		{
			name: "any case and Consul's aliases",
			in: `{"kind": "service-intentions", "name": "api", "sources": [{"name": "web", "sameness_group": "g",
			  "permissions": [{"action": "allow", "http": {"path_exact": "/a", "HEADER": [{"name": "x", "present": true}], "methods": ["get"]}}]}]}`,
			want: ConfigEntry{Kind: Kind, Name: "api", Sources: []SourceIntention{{Name: "web", SamenessGroup: "g",
				Permissions: []Permission{{Action: Allow, HTTP: &HTTPMatch{PathExact: "/a", Header: []HeaderMatch{{Name: "x", Present: true}}, Methods: []string{"get"}}}}}}},
		},
		{
			name: "JWT and legacy fields",
			in: `{"Name": "api", "JWT": {"Providers": [{"Name": "okta", "verify_claims": [{"Path": ["perms"], "Value": "x"}]}]},
			  "Sources": [{"Name": "web", "Action": "deny", "legacy_id": "abc", "LegacyCreateTime": "2023-01-02T03:04:05Z"}]}`,
			want: ConfigEntry{Name: "api", JWT: &JWTRequirement{Providers: []JWTProvider{{Name: "okta", VerifyClaims: []JWTClaim{{Path: []string{"perms"}, Value: "x"}}}}},
				Sources: []SourceIntention{{Name: "web", Action: Deny, LegacyID: "abc", LegacyCreateTime: ptr(mustTime(t, "2023-01-02T03:04:05Z"))}}},
		},
		{
			name: "keys Consul CE does not read, in its words, inner objects first",
			in:   `{"Name": "api", "Namespace": "ns", "Sources": [{"Name": "web", "Partition": "p", "Action": "allow", "Permissions": [{"Action": "allow", "HTTP": {"Pathexact": "/", "Foo": 1}}]}]}`,
			err: "3 errors occurred:\n\t* invalid config key \"Sources[0].Permissions[0].HTTP.Foo\"\n\t* invalid config key \"Sources[0].Partition\"\n\t" +
				"* invalid config key \"Namespace\", namespaces are a consul enterprise feature\n\n",
		},
		{
			name: "raft indexes only as Consul spells them",
			in:   `{"Name": "api", "createindex": 1, "Sources": [{"Name": "web", "Action": "allow"}]}`,
			err:  "1 error occurred:\n\t* invalid config key \"createindex\"\n\n",
		},
		{
			name: "a wrong type and a key given twice, in meshscope's words",
			in:   `{"Name": "api", "Sources": [{"Name": "web", "name": "api", "Permissions": [{"Action": "allow", "HTTP": {"Header": [{"Name": "x", "Invert": "yes"}]}}]}]}`,
			err:  `Sources[0]: field given twice, as "Name" and "name"` + "\n" + `Sources[0].Permissions[0].HTTP.Header[0].Invert: must be a boolean, got the string "yes"`,
		},
		{
			name: "another kind",
			in:   `{"Kind": "service-defaults", "Name": "api"}`,
			err:  `Kind: must be "service-intentions", got "service-defaults"`,
		},
		{
			name: "a time not in RFC 3339",
			in:   `{"Name": "api", "Sources": [{"Name": "web", "LegacyUpdateTime": "yesterday"}]}`,
			err:  `Sources[0].LegacyUpdateTime: "yesterday" is not a time in RFC 3339 form such as "2006-01-02T15:04:05Z"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.in))
			if tc.err != "" {
				require.Error(t, err)
				require.Equal(t, tc.err, err.Error())
				return
			}
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(tc.want, got))
			again, err := json.Marshal(got)
			require.NoError(t, err)
			back, err := Decode(again)
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(got, back), "a decoded entry encodes back to the same entry")
		})
	}
}

func TestUnknownKeysNameEveryPath(t *testing.T) {
	_, err := Decode([]byte(`{"Name": "api", "Sources": [{"Name": "a", "Action": "allow", "Namespace": "x"}, {"Name": "b", "Action": "deny", "partition": "y"}]}`))
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	require.ErrorIs(t, err, ErrUnknownField)
	require.Equal(t, []string{"Sources[0].Namespace", "Sources[1].partition"}, fe.Value)
}

func TestLoadEntries(t *testing.T) {
	got, err := LoadEntries([]byte(`[{"Kind": "service-intentions", "Name": "api", "Sources": [{"Name": "web", "Action": "allow"}]},
	  {"Kind": "service-intentions", "Name": "db", "Sources": [{"Name": "web", "Action": "maybe"}]}]`))
	require.Nil(t, got)
	require.EqualError(t, err, "[1]: Sources[0].Action: Sources[0].Action must be set to 'allow' or 'deny'")
}

func TestNormalize(t *testing.T) {
	e := ConfigEntry{Name: "api", Sources: []SourceIntention{
		{Name: "*", Action: Deny},
		{Name: "web", Peer: "east", LegacyID: "x", Permissions: []Permission{{Action: Allow, HTTP: &HTTPMatch{Methods: []string{"get", "Post"}}}}},
		{Name: "db", Action: Allow},
	}}
	e.Normalize()
	require.Equal(t, Kind, e.Kind)
	var order []string
	for _, s := range e.Sources {
		order = append(order, s.Name)
		require.Equal(t, SourceTypeConsul, s.Type)
		require.Empty(t, s.LegacyID)
	}
	require.Equal(t, []string{"web", "db", "*"}, order, "stable by precedence: 9, 9, 8")
	require.Equal(t, []string{"GET", "POST"}, e.Sources[0].Permissions[0].HTTP.Methods)
	require.Equal(t, []int{9, 9, 8}, []int{e.Sources[0].Precedence, e.Sources[1].Precedence, e.Sources[2].Precedence})
}

func TestValidate(t *testing.T) {
	allow := func(name string) SourceIntention { return SourceIntention{Name: name, Action: Allow} }
	perm := func(h *HTTPMatch) SourceIntention {
		return SourceIntention{Name: "web", Permissions: []Permission{{Action: Allow, HTTP: h}}}
	}
	long := strings.Repeat("x", 513)
	for _, tc := range []struct {
		name string
		e    ConfigEntry
		want string // Consul's message; "" when valid
	}{
		{"valid", ConfigEntry{Name: "api", Sources: []SourceIntention{allow("web"), {Name: "*", Peer: "east", Action: Deny}}}, ""},
		{"name required", ConfigEntry{Sources: []SourceIntention{allow("web")}}, "Name is required"},
		{"partial wildcard name", ConfigEntry{Name: "a*"}, "Name: wildcard character '*' cannot be used with partial values"},
		{"JWT provider name", ConfigEntry{Name: "api", JWT: &JWTRequirement{Providers: []JWTProvider{{}}}}, "1 error occurred:\n\t* JWT provider name is required\n\n"},
		{"meta", ConfigEntry{Name: "api", Meta: map[string]string{"b": long, "a": long}},
			"2 errors occurred:\n\t* Meta value for key \"a\" exceeds maximum length 512\n\t* Meta value for key \"b\" exceeds maximum length 512\n\n"},
		{"a source", ConfigEntry{Name: "api"}, "At least one source is required"},
		{"source name, in precedence order", ConfigEntry{Name: "api", Sources: []SourceIntention{allow("*"), {Action: Allow}}}, "Sources[0].Name is required"},
		{"sameness group, trailing space", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", SamenessGroup: "g", Action: Allow}}},
			"Sources[0].SamenessGroup: Sameness groups are a Consul Enterprise feature. "},
		{"partial wildcard source", ConfigEntry{Name: "api", Sources: []SourceIntention{allow("w*")}}, "Sources[0].Name: wildcard character '*' cannot be used with partial values"},
		{"wildcard peer", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Peer: "e*", Action: Allow}}}, "Sources[0].Peer: cannot use wildcard '*' in peer"},
		{"description", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Action: Allow, Description: long}}}, "Sources[0].Description exceeds maximum length 512"},
		{"legacy meta", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Action: Allow, LegacyMeta: map[string]string{"a": "b"}}}}, "Sources[0].LegacyMeta must be omitted"},
		{"action", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Action: "ALLOW"}}}, "Sources[0].Action must be set to 'allow' or 'deny'"},
		{"action beside permissions", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Action: Allow, Permissions: []Permission{{Action: Allow}}}}},
			"Sources[0].Action must be omitted if Permissions are specified"},
		{"permissions to *", ConfigEntry{Name: "*", Sources: []SourceIntention{perm(&HTTPMatch{PathExact: "/"})}},
			"Sources[0].Permissions cannot be specified on intentions with wildcarded destinations"},
		{"type", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Action: Allow, Type: "external"}}}, "Sources[0].Type must be set to 'consul'"},
		{"permission action", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "web", Permissions: []Permission{{HTTP: &HTTPMatch{PathExact: "/"}}}}}},
			"Sources[0].Permissions[0].Action must be set to 'allow' or 'deny'"},
		{"HTTP", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(nil)}}, "Sources[0].Permissions[0].HTTP is required"},
		{"path exact", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{PathExact: "a"})}}, `Sources[0].Permissions[0].HTTP.PathExact doesn't start with '/': "a"`},
		{"two paths", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{PathExact: "/a", PathRegex: "["})}},
			"Sources[0].Permissions[0].HTTP should only contain at most one of PathExact, PathPrefix, or PathRegex"},
		{"header name", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{Header: []HeaderMatch{{Exact: "a"}}})}},
			"Sources[0].Permissions[0].HTTP.Header[0] missing required Name field"},
		{"header matchers", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{Header: []HeaderMatch{{Name: "x", Invert: true}}})}},
			"Sources[0].Permissions[0].HTTP.Header[0] should only contain one of Present, Exact, Prefix, Suffix, or Regex"},
		{"method", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{Methods: []string{"fetch"}})}},
			`Sources[0].Permissions[0].HTTP.Methods contains an invalid method "FETCH"`},
		{"method twice after upper-casing", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{Methods: []string{"get", "GET"}})}},
			`Sources[0].Permissions[0].HTTP.Methods contains "GET" more than once`},
		{"empty HTTP", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{})}}, "Sources[0].Permissions[0].HTTP should not be empty"},
		{"a regex that does not compile is Consul's to accept", ConfigEntry{Name: "api", Sources: []SourceIntention{perm(&HTTPMatch{PathRegex: "/[a-z"})}}, ""},
		{"source twice", ConfigEntry{Name: "api", Sources: []SourceIntention{allow("web"), allow("db"), {Name: "web", Action: Deny}}}, `Sources[2] defines "web" more than once`},
		{"peer source twice", ConfigEntry{Name: "api", Sources: []SourceIntention{{Name: "*", Peer: "e", Action: Deny}, {Name: "*", Peer: "e", Action: Allow}}},
			`Sources[1] defines peer("e") "*" more than once`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.e.clone()
			err := tc.e.Validate()
			require.Empty(t, cmp.Diff(before, tc.e), "Validate changes nothing")
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Equal(t, tc.want, fe.Detail)
		})
	}
}

func TestPrecedenceOrder(t *testing.T) {
	list := []Intention{
		{SourceName: "*", DestinationName: "*"},
		{SourceName: "web", SourcePeer: "east", DestinationName: "api"},
		{SourceName: "web", DestinationName: "*"},
		{SourceName: "web", DestinationName: "api"},
		{SourceName: "*", DestinationName: "api"},
		{SourceName: "api", DestinationName: "api"},
	}
	for i := range list {
		list[i].Precedence = Precedence(list[i].SourceName, list[i].DestinationName)
	}
	Sort(list)
	var got []string
	for _, x := range list {
		got = append(got, x.String())
	}
	require.Equal(t, []string{"api → api (9, )", "web → api (9, )", "web@east → api (9, )", "* → api (8, )", "web → * (6, )", "* → * (5, )"}, got)
}

func TestProtocolCheck(t *testing.T) {
	l7 := ConfigEntry{Name: "db", Sources: []SourceIntention{{Name: "web", Permissions: []Permission{{Action: Allow, HTTP: &HTTPMatch{PathExact: "/"}}}}}}
	require.True(t, l7.RequiresHTTP())
	require.ErrorIs(t, l7.CheckProtocol("tcp"), ErrL7Protocol)
	require.ErrorIs(t, l7.CheckProtocol(""), ErrL7Protocol)
	for _, p := range []string{"http", "http2", "grpc"} {
		require.NoError(t, l7.CheckProtocol(p))
	}
	l4 := ConfigEntry{Name: "db", Sources: []SourceIntention{{Name: "web", Action: Allow}}}
	require.False(t, l4.RequiresHTTP())
	require.NoError(t, l4.CheckProtocol("tcp"))
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return tm
}

func ptr[T any](v T) *T { return &v }

func TestIntentionsAsStored(t *testing.T) {
	e, err := Decode([]byte(`{"Name": "api", "Sources": [{"Name": "*", "Action": "deny"},
	  {"Name": "web", "Permissions": [{"Action": "allow", "HTTP": {"Methods": ["get"]}}]}]}`))
	require.NoError(t, err)
	got := e.Intentions()
	require.Equal(t, "* → api (8, deny)", got[0].String())
	require.Equal(t, []string{"GET"}, got[1].Permissions[0].HTTP.Methods)
	require.Equal(t, []string{"get"}, e.Sources[1].Permissions[0].HTTP.Methods, "the entry is not changed")
	_, err = Compile(sidecar("http", "http", nil, ForDestination("api", []ConfigEntry{e})...))
	require.NoError(t, err)
}
