package chain

import "encoding/json"

// resolverFields has ServiceResolver's fields and none of its methods.
type resolverFields ServiceResolver

// resolverJSON is the wire form: durations as strings.
type resolverJSON struct {
	resolverFields
	ConnectTimeout string `json:"ConnectTimeout,omitempty"`
	RequestTimeout string `json:"RequestTimeout,omitempty"`
}

// MarshalJSON encodes the resolver as Consul does, with durations as strings ("5s") and
// zero durations left out.
func (r ServiceResolver) MarshalJSON() ([]byte, error) {
	w := resolverJSON{resolverFields: resolverFields(r)}
	if r.ConnectTimeout != 0 {
		w.ConnectTimeout = r.ConnectTimeout.String()
	}
	if r.RequestTimeout != 0 {
		w.RequestTimeout = r.RequestTimeout.String()
	}
	return json.Marshal(w)
}
