package sidecar

import (
	"fmt"
	"testing"
)

// mapOnlySet is the baseline of BenchmarkReceivedSet: a receivedSet that finds every host
// through a map, however few the hosts.
type mapOnlySet struct {
	list []received
	at   map[int32]int32
}

func (g *mapOnlySet) get(rank int32) *received {
	if i, ok := g.at[rank]; ok {
		return &g.list[i]
	}
	return nil
}

func (g *mapOnlySet) add(r received) {
	if g.at == nil {
		g.at = map[int32]int32{}
	}
	g.at[r.rank] = int32(len(g.list))
	g.list = append(g.list, r)
}

// BenchmarkReceivedSet is what a proxy's receivedSet costs for n hosts (by their ranks),
// each looked up before it is added and once more after (as receive and the rule lookups
// do), beside a set that uses a map at every size.
func BenchmarkReceivedSet(b *testing.B) {
	for _, n := range []int{4, 8, 30, 1000} {
		hosts := make([]string, n)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("svc-%d.shop.svc.cluster.local", i)
		}
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var g receivedSet
				g.reserve(n)
				for i, h := range hosts {
					if g.get(int32(i)) == nil {
						g.add(received{host: h, rank: int32(i)})
					}
				}
				for i := range hosts {
					_ = g.get(int32(i))
				}
			}
		})
		b.Run(fmt.Sprintf("hosts=%d/baseline=map", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g := mapOnlySet{list: make([]received, 0, n), at: make(map[int32]int32, n)}
				for i, h := range hosts {
					if g.get(int32(i)) == nil {
						g.add(received{host: h, rank: int32(i)})
					}
				}
				for i := range hosts {
					_ = g.get(int32(i))
				}
			}
		})
	}
}

// TestReceivedSetFindsEveryHost holds the scan and the map it turns into to one answer.
func TestReceivedSetFindsEveryHost(t *testing.T) {
	for _, n := range []int{0, 1, scanHosts, scanHosts + 1, 40} {
		var g receivedSet
		for i := range n {
			g.add(received{host: fmt.Sprint(i), rank: int32(i)})
		}
		for i := range n + 2 {
			r := g.get(int32(i))
			if (r != nil) != (i < n) || r != nil && r.host != fmt.Sprint(i) {
				t.Fatalf("%d hosts: get(%d) = %v", n, i, r)
			}
		}
	}
}
