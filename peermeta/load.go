package peermeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
		return nil, &FieldError{Field: "(top level)", Value: x, Detail: "must be a list of instances, as /v1/health/service/<name> returns, got " + strict.Describe(x)}
	}
	out := make([]CheckServiceNode, len(list))
	var errs []error
	for i, item := range list {
		b, err := json.Marshal(item)
		if err == nil {
			err = json.Unmarshal(b, &out[i])
		}
		if err != nil {
			errs = append(errs, typeError(i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// typeError rewrites encoding/json's message about element i, which names Go types, as a
// path and what was expected: "[1].Service.Port: must be a whole number, got a string".
func typeError(i int, err error) *FieldError {
	path := "[" + strconv.Itoa(i) + "]"
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return &FieldError{Field: path, Detail: err.Error()}
	}
	if te.Field != "" {
		path += "." + te.Field
	}
	got := te.Value
	num := strings.TrimPrefix(got, "number ")
	fe := &FieldError{Field: path}
	switch {
	case num != got && isNumber(te.Type.Kind()) && !strings.ContainsAny(num, ".eE"):
		fe.Value, fe.Detail = json.Number(num), fmt.Sprintf("the %s is out of range for %s", got, te.Type.Kind())
		return fe
	case got == "array":
		got = "a list"
	case got == "object":
		got = "an object"
	case got == "bool":
		got = "a boolean"
	case num != got:
		fe.Value, got = json.Number(num), "the "+got
	default:
		got = "a " + got
	}
	fe.Detail = fmt.Sprintf("must be %s, got %s", want(te.Type), got)
	return fe
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
