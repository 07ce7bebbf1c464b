package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatCauses(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []Cause
		want string
	}{
		{"none", nil, ""},
		{"one", []Cause{SidecarExclusions}, "SidecarExclusions (from 1.31.0)"},
		{"as given, each with its release", []Cause{ListenerOrder, DestinationNamespace, ZtunnelCIDRs},
			"ListenerOrder (from 1.30.3), DestinationNamespace (from 1.30.0), ZtunnelCIDRs (from 1.30.0)"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, FormatCauses(tt.in)) })
	}
}
