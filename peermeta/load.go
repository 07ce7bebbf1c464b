package peermeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// LoadHealth reads the answer of Consul's /v1/health/service/<name> endpoint (for example
// `curl $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway`): a JSON array of instances with
// their nodes and checks. Fields meshscope does not use are ignored, as Consul's API clients
// ignore them, but the JSON is read exactly: a key given twice, data after the array, and a
// value of the wrong type are errors naming the element and field
// ("[1].Service.Port: must be a whole number, got a string"); every element's problems are
// reported.
func LoadHealth(data []byte) ([]CheckServiceNode, error) {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	list, ok := x.([]any)
	if !ok {
		return nil, fmt.Errorf("(top level): must be a list of instances, as /v1/health/service/<name> returns, got %s", strict.Describe(x))
	}
	out := make([]CheckServiceNode, len(list))
	var errs []error
	for i, item := range list {
		b, err := json.Marshal(item)
		if err == nil {
			err = json.Unmarshal(b, &out[i])
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("[%d]%s", i, typeError(err)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// typeError rewrites encoding/json's message, which names Go types, as a path and what was
// expected: ".Service.Port: must be a whole number, got a string".
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return ": " + err.Error()
	}
	path := ""
	if te.Field != "" {
		path = "." + te.Field
	}
	got := te.Value
	switch {
	case strings.HasPrefix(got, "number") && isNumber(te.Type.Kind()) && !strings.ContainsAny(strings.TrimPrefix(got, "number "), ".eE"):
		return fmt.Sprintf("%s: the %s is out of range for %s", path, got, te.Type.Kind())
	case got == "array":
		got = "a list"
	case got == "object":
		got = "an object"
	case got == "bool":
		got = "a boolean"
	case strings.HasPrefix(got, "number"):
		got = "the " + got
	default:
		got = "a " + got
	}
	return fmt.Sprintf("%s: must be %s, got %s", path, want(te.Type), got)
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

func want(t reflect.Type) string {
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Uint64:
		return "a whole number"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case k == reflect.Slice:
		return "a list"
	case k == reflect.Map || k == reflect.Struct || k == reflect.Pointer:
		return "an object"
	}
	return "another type"
}
