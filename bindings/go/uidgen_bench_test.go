// SPDX-License-Identifier: LGPL-2.1-or-later

// Benchmarks for make bench (bench/guest.sh): Next (ns/op is per ID) and
// Batch(4096) (ns/op is per 4096 IDs). They need the device.
package uidgen

import "testing"

func BenchmarkNext(b *testing.B) {
	g, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBatch4096(b *testing.B) {
	g, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Batch(4096); err != nil {
			b.Fatal(err)
		}
	}
}
