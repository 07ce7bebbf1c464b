package fielderr_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// checkHosts is a check as meshscope's packages write one: it takes the path of its object's
// spec and builds the path of a field only for a problem there.
func checkHosts(spec fielderr.Path, hosts []string) []error {
	var errs []error
	for i, h := range hosts {
		if strings.Contains(h, " ") {
			errs = append(errs, spec.Child("hosts").Index(i).Problemf(h, "%q has a space", h))
		}
	}
	return errs
}

func ExamplePath() {
	hosts := []string{"a.example", "b example"}
	// Reading an object: its fields as the object spells them, the object named by the reader.
	read := errors.Join(checkHosts(fielderr.Root(fielderr.Object).Child("spec"), hosts)...)
	fmt.Println(fielderr.In("items[3] (ServiceEntry shop/api)", read))
	// Validating a Go value: its fields as the value spells them.
	built := errors.Join(checkHosts(fielderr.Root(fielderr.GoValue), hosts)...)
	fmt.Println(fielderr.In("Services[0] (ServiceEntry shop/api)", built))
	// Output:
	// items[3] (ServiceEntry shop/api): spec.hosts[1]: "b example" has a space
	// Services[0] (ServiceEntry shop/api): Hosts[1]: "b example" has a space
}

func ExamplePath_Field() {
	for _, root := range []fielderr.Path{fielderr.Root(fielderr.Object).Child("spec"), fielderr.Root(fielderr.GoValue)} {
		dest := root.Child("http").Index(0).Child("route").Index(1).Field("destination", "")
		fmt.Println(dest.Child("host"), dest.Child("port").Field("number", ""))
	}
	// Output:
	// spec.http[0].route[1].destination.host spec.http[0].route[1].destination.port.number
	// HTTP[0].Route[1].Host HTTP[0].Route[1].Port
}
