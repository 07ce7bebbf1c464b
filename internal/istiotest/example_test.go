package istiotest_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/meshscope/meshscope/internal/istiotest"
)

func ExampleListOf() {
	fmt.Print(istiotest.ListOf("kind: Namespace\nmetadata: {name: shop}\n", istiotest.TwiceConfigMap))
	// Output:
	// apiVersion: v1
	// kind: List
	// items:
	// - kind: Namespace
	//   metadata: {name: shop}
	// - apiVersion: v1
	//   kind: ConfigMap
	//   metadata:
	//     name: app
	//     namespace: shop
	//   data:
	//     a: x
	//     a: y
}

func ExampleObjects_Dump() {
	o := istiotest.Objects{ID: 2, Namespaces: map[string]map[string]string{"shop": nil},
		ServiceEntries: []istiotest.ServiceEntry{{Name: "api", Namespace: "shop", Hosts: []string{"api.example.com"}, Resolution: "DNS",
			CreationTime: "2026-01-01T00:00:00Z", Ports: []istiotest.Port{{Number: 443, Name: "https", Protocol: "TLS"}}}}}
	dump, err := o.Dump() // case 2, as every third case, as `kubectl get -o json` prints it
	if err != nil {
		panic(err)
	}
	fmt.Println(string(dump))
	// Output:
	// {
	//     "apiVersion": "v1",
	//     "items": [
	//         {
	//             "apiVersion": "v1",
	//             "kind": "Namespace",
	//             "metadata": {
	//                 "labels": null,
	//                 "name": "shop"
	//             },
	//             "spec": {
	//                 "finalizers": [
	//                     "kubernetes"
	//                 ]
	//             },
	//             "status": {
	//                 "phase": "Active"
	//             }
	//         },
	//         {
	//             "apiVersion": "networking.istio.io/v1",
	//             "kind": "ServiceEntry",
	//             "metadata": {
	//                 "creationTimestamp": "2026-01-01T00:00:00Z",
	//                 "generation": 1,
	//                 "name": "api",
	//                 "namespace": "shop",
	//                 "resourceVersion": "4711",
	//                 "uid": "0d8f1a52-1111-4a4a-8c8c-000000000001"
	//             },
	//             "spec": {
	//                 "hosts": [
	//                     "api.example.com"
	//                 ],
	//                 "location": "",
	//                 "ports": [
	//                     {
	//                         "name": "https",
	//                         "number": 443,
	//                         "protocol": "TLS"
	//                     }
	//                 ],
	//                 "resolution": "DNS"
	//             }
	//         }
	//     ],
	//     "kind": "List",
	//     "metadata": {
	//         "resourceVersion": ""
	//     }
	// }
}

func ExampleShuffled() {
	list := []string{"a", "b", "c", "d"}
	shuffled := istiotest.Shuffled(rand.New(rand.NewPCG(1, 2)), list)
	fmt.Println(list, len(shuffled))
	// Output:
	// [a b c d] 4
}
