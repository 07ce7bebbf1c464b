package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
	kubeyaml "sigs.k8s.io/yaml"

	"github.com/meshscope/meshscope/internal/strict"

	"github.com/meshscope/meshscope/internal/longtest"
)

// realisticDump is what `kubectl get namespaces,serviceentries,services,deployments,
// configmaps -A -o yaml` prints for a cluster of n objects — printed by kubectl's own
// printer (sigs.k8s.io/yaml) — and the same List as `-o json` prints it (indented by four
// spaces). Its objects carry what real ones do: managed fields with f: and k: keys, the
// last-applied annotation, random uids (some start 0b, 0e or 0x-like digits), UTF-8 text,
// exportTo ["."], status conditions whose messages hold commas, URLs such as
// http://[::1]:8081, arguments such as --verbose and $HOME.
func realisticDump(n int) (yamlData, jsonData []byte) {
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": realisticObjects(0, n)}
	js, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		panic(err)
	}
	y, err := kubeyaml.Marshal(list)
	if err != nil {
		panic(err)
	}
	return y, append(js, '\n')
}

// realisticObjects are the objects realisticDump prints: n of them, the first numbered first
// (so that objects made in parts have distinct names and addresses).
func realisticObjects(first, n int) []any {
	rng := rand.New(rand.NewPCG(24, uint64(first+n)))
	uid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), 0x8000|rng.IntN(1<<14), rng.Uint64()&(1<<48-1))
	}
	nss := max(n/20, 1)
	ns0 := first / 20
	ts := func(i int) string {
		return fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02dZ", 1+i%12, 1+i%28, i%24, i%60, (7*i)%60)
	}
	meta := func(i int, kind, name, ns string, labels map[string]any, spec any) map[string]any {
		applied, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns, "labels": labels}, "spec": spec})
		m := map[string]any{
			"name": name, "uid": uid(), "resourceVersion": fmt.Sprint(100000 + i), "generation": 1 + i%3,
			"creationTimestamp": ts(i), "labels": labels,
			"annotations": map[string]any{
				"kubectl.kubernetes.io/last-applied-configuration": string(applied) + "\n",
				"description":        []string{"Zahlungsdienst für Überweisungen — 支付服务", "Service de paiement, équipe « paiements »", "payments: ledger, refunds"}[i%3],
				"example.com/health": "http://[::1]:8081/healthz",
			},
			"managedFields": []any{map[string]any{
				"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubectl-client-side-apply", "operation": "Update", "time": ts(i),
				"fieldsV1": map[string]any{
					"f:metadata": map[string]any{
						"f:annotations": map[string]any{".": map[string]any{}, "f:kubectl.kubernetes.io/last-applied-configuration": map[string]any{}},
						"f:labels":      map[string]any{".": map[string]any{}, "f:app": map[string]any{}, "f:team": map[string]any{}},
					},
					"f:spec": map[string]any{
						"f:ports": map[string]any{`k:{"port":80,"protocol":"TCP"}`: map[string]any{".": map[string]any{}, "f:name": map[string]any{}, "f:port": map[string]any{}}},
					},
				},
			}},
		}
		if ns != "" {
			m["namespace"] = ns
		}
		return m
	}
	conditions := func(i int) []any {
		return []any{map[string]any{
			"type": "Reconciled", "status": "True", "lastTransitionTime": ts(i), "reason": "Synced",
			"message": fmt.Sprintf("Ready, %d endpoints, %d ports: all healthy", i%7, 1+i%3),
		}}
	}
	var items []any
	for i := range nss {
		name := fmt.Sprintf("team-%d", ns0+i)
		labels := map[string]any{"kubernetes.io/metadata.name": name, "team": fmt.Sprint("t", i%5), "istio.io/dataplane-mode": "ambient"}
		items = append(items, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta(i, "Namespace", name, "", labels, nil),
			"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}})
	}
	for i := first; len(items) < n; i++ {
		ns := fmt.Sprintf("team-%d", ns0+i%nss)
		labels := map[string]any{"app": fmt.Sprint("app", i), "team": fmt.Sprint("t", i%5)}
		ip := fmt.Sprintf("%d.%d.%d", i/62500, i/250%250, i%250)
		seSpec := map[string]any{
			"hosts": []any{fmt.Sprintf("api%d.example.com", i)}, "addresses": []any{"240." + ip}, "exportTo": []any{[]string{".", "*", "istio-system"}[i%3]},
			"ports":      []any{map[string]any{"name": "https", "number": 443, "protocol": "TLS"}},
			"resolution": "DNS", "location": "MESH_EXTERNAL",
			"endpoints": []any{map[string]any{"address": fmt.Sprintf("api%d.internal.example.com", i), "labels": map[string]any{"zone": "eu-west-1a"}}},
		}
		svcSpec := map[string]any{
			"clusterIP": "10." + ip, "clusterIPs": []any{"10." + ip}, "ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack",
			"internalTrafficPolicy": "Cluster", "sessionAffinity": "None", "type": "ClusterIP", "selector": labels,
			"ports": []any{map[string]any{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}},
		}
		items = append(items,
			map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "ServiceEntry", "metadata": meta(i, "ServiceEntry", fmt.Sprint("se", i), ns, labels, seSpec),
				"spec": seSpec, "status": map[string]any{"conditions": conditions(i), "addresses": []any{map[string]any{"host": fmt.Sprintf("api%d.example.com", i), "value": "241." + ip}}}},
			map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": meta(i, "Service", fmt.Sprint("svc", i), ns, labels, svcSpec),
				"spec": svcSpec, "status": map[string]any{"loadBalancer": map[string]any{}}})
		if i%4 == 0 {
			items = append(items, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(i, "Deployment", fmt.Sprint("web", i), ns, labels, nil),
				"spec": map[string]any{"replicas": 2, "selector": map[string]any{"matchLabels": labels}, "template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{"containers": []any{map[string]any{
						"name": "web", "image": "registry.example.com/web:1.2.3", "args": []any{"--verbose", "--port=8080", "--config=$HOME/web.yaml"},
						"env":       []any{map[string]any{"name": "GREETING", "value": "Grüß Gott, world"}},
						"resources": map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "128Mi"}},
					}}, "volumes": []any{map[string]any{"name": "certs", "secret": map[string]any{"secretName": "certs", "defaultMode": 420}}}},
				}},
				"status": map[string]any{"conditions": conditions(i), "replicas": 2, "readyReplicas": 2}})
		}
	}
	return items
}

// dumpObjects is how many objects realisticDump needs to print about 12.5 MB of YAML.
const dumpObjects = 6600

var (
	dumpOnce           sync.Once
	dumpYAML, dumpJSON []byte
)

func bigDump() ([]byte, []byte) {
	dumpOnce.Do(func() { dumpYAML, dumpJSON = realisticDump(dumpObjects) })
	return dumpYAML, dumpJSON
}

// benchmarkDump runs decode on data, reporting the bytes it allocates per input byte.
func benchmarkDump(b *testing.B, data []byte, decode func([]byte) error) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(data)), "B/B")
}

func loadDump(data []byte) error { _, err := Load(data, ""); return err }

// BenchmarkDump: a 12.5 MB `kubectl get -o yaml` dump and the same as `-o json`, read by
// Load, beside a generic decode of the same bytes (yaml.v3 and encoding/json into
// interface values).
func BenchmarkDump(b *testing.B) {
	y, js := bigDump()
	b.Run("yaml/Load", func(b *testing.B) { benchmarkDump(b, y, loadDump) })
	b.Run("yaml/yaml.v3", func(b *testing.B) {
		benchmarkDump(b, y, func(d []byte) error { var x any; return yaml.Unmarshal(d, &x) })
	})
	b.Run("json/Load", func(b *testing.B) { benchmarkDump(b, js, loadDump) })
	b.Run("json/encoding-json", func(b *testing.B) {
		benchmarkDump(b, js, func(d []byte) error { var x any; return json.Unmarshal(d, &x) })
	})
}

// TestWriteDump writes a dump of about MESHSCOPE_DUMP_MB megabytes as `kubectl get -o yaml`
// prints it to the file MESHSCOPE_DUMP_FILE, for measuring the example programs on a large
// cluster (go run ./examples/visibility -inventory FILE); it is skipped without them.
func TestWriteDump(t *testing.T) {
	file, mb := os.Getenv("MESHSCOPE_DUMP_FILE"), os.Getenv("MESHSCOPE_DUMP_MB")
	if file == "" || mb == "" {
		t.Skip("MESHSCOPE_DUMP_FILE and MESHSCOPE_DUMP_MB are not set")
	}
	size, err := strconv.Atoi(mb)
	require.NoError(t, err)
	f, err := os.Create(file)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("apiVersion: v1\nitems:\n")
	require.NoError(t, err)
	written := 0
	for first := 0; written < size<<20; first += 5000 {
		y, err := kubeyaml.Marshal(map[string]any{"items": realisticObjects(first, 5000)})
		require.NoError(t, err)
		n, err := f.Write(bytes.TrimPrefix(y, []byte("items:\n")))
		require.NoError(t, err)
		written += n
	}
	_, err = f.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	require.NoError(t, err)
}

// TestRealisticDumpReadsAsYAMLv3 holds meshscope's reader to yaml.v3 itself on the
// realistic dump, YAML and JSON: the same values as yaml.v3 decoding it into interface
// values, compared as JSON. It reads 240 objects, and the full 12.5 MB with MESHSCOPE_LONG=1.
func TestRealisticDumpReadsAsYAMLv3(t *testing.T) {
	n := 240
	if longtest.Long() {
		n = dumpObjects
	}
	y, js := realisticDump(n)
	for _, data := range [][]byte{y, js} {
		docs, err := strict.ParseYAML(data, "")
		require.NoError(t, err)
		require.Len(t, docs, 1)
		require.NoError(t, docs[0].Err)
		var want any
		require.NoError(t, yaml.Unmarshal(data, &want))
		assert.Equal(t, asJSON(t, want), asJSON(t, docs[0].Value))
	}
}

// asJSON is x written as JSON and read back by encoding/json: objects as maps, numbers as
// float64.
func asJSON(t *testing.T, x any) any {
	b, err := json.Marshal(x)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

func TestRealisticDumpLoads(t *testing.T) {
	for _, n := range []int{60, 240} {
		y, js := realisticDump(n)
		for _, data := range [][]byte{y, js} {
			inv, err := Load(data, "")
			require.NoError(t, err)
			require.Len(t, inv.Namespaces, max(n/20, 1))
			require.NotEmpty(t, inv.Services)
		}
	}
}
