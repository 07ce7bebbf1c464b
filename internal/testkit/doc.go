// Package testkit is the test support the Consul half's packages share: what two or more of
// their tests would otherwise each write. It holds the error matchers of table tests, the
// shapes of the answers recorded from Consul and the comparisons every test held to them
// makes, so that each package's test says only what its package computes.
//
// Errors: ErrLines holds an error to its messages, one per line, in order (no error for
// none); ErrLinesAnyOrder in any order, for decoders that report in map order; DecodeCase
// holds a strict decoder's answer to the value or the messages a table expects:
//
//	for _, tt := range tests {
//		t.Run(tt.name, func(t *testing.T) { testkit.ErrLines(t, tt.in.Validate(), tt.errs) })
//	}
//
// Recordings: the chains Consul's compiler and server compiled (ChainRequest, ChainAnswer,
// CompareChain), the answers of Consul's server to each write (Write, Replay) and the
// recording of service-intentions (LoadIntentions). Package testkit imports no meshscope
// package outside internal/: a test turns its package's values into these shapes (a
// compiled chain into a ChainAnswer), or hands them over as their JSON (Config.Apply's
// outcomes), so that one comparison serves every package.
package testkit
