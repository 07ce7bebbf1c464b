// Package istiotest is the test support the tests of meshscope's Istio packages (visibility
// and every package under it, and the internal packages they use) share, so that each piece
// of it is written once:
//
//   - random values for property tests, from a small alphabet so that selectors and labels
//     often meet: label selectors, namespace labels, serviceEntryVisibility configurations
//     (Selector, Labels, Config), and strings near names, for holding name rules to Istio's
//     expressions (NameLike);
//   - the Istio vectors' inputs — the cases of istio-sidecar.json, istio-routing.json,
//     istio-gateway.json and istio-gamma.json, and the recording of one set of cases through
//     several releases, istio-releases.json — read into Objects and spelt as a user has them:
//     a kubectl dump (Objects.Dump) and a mesh file (Objects.MeshFile);
//   - the addresses vectors (LoadAddressVectors), each ServiceEntry as kubectl prints it;
//   - kubectl's spellings: objects, Lists, nested Lists, fixtures of objects no loader reads
//     (KubectlObject, List, ListOf, NestedLists);
//   - checks: problems as FieldErrors, Istio's validation messages, the linear growth of a
//     loader in the depth of nested Lists (FieldErrors, IstioMessages, NestedListsGrowth).
//
// It imports no meshscope package outside internal/, so that every package's own tests
// (package visibility's among them) can import it: what it makes is spelt as the objects
// are — kubectl's and meshConfig's spellings, and apimachinery's types — and a test that
// needs a meshscope type reads it through that type's own decoding (Config decodes a
// random block into the caller's type), or builds it in its own package. The vectors' answers,
// which each package compares in its own types, are read there too.
//
// Each package's literal reference implementation stays in that package's tests, apart from
// the code it checks; nothing here decides what Istio does.
package istiotest
