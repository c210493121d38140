// SPDX-License-Identifier: GPL-2.0-only

// Compiles weave's syzkaller descriptions with syzkaller's own compiler.
//
// scripts/syz-check.sh copies this file into a scratch copy of a syzkaller
// tree, next to dev_weave.txt and its const file in sys/linux, and runs it
// there (it imports syzkaller's packages).  It compiles every description
// of sys/linux for linux/amd64, as syz-sysgen does for each arch, and
// fails on:
//   - any error of the parser or the compiler, in any file;
//   - any warning located in the checked file (a missing const makes one,
//     and the call it disables);
//   - a call of the checked file that did not make it into the tables;
//   - a struct of the header, named by a WEAVE_SIZEOF_<S> const, that no
//     struct drm_weave_<s> (or template instance drm_weave_<s>[...])
//     describes, or that one describes with another size; but for the
//     structs of a shared ring (mappedOnly), which live in memory the
//     program maps, where no call's argument can be.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/syzkaller/pkg/ast"
	"github.com/google/syzkaller/pkg/compiler"
	"github.com/google/syzkaller/prog"
	"github.com/google/syzkaller/sys/targets"
)

const sizeofPrefix = "WEAVE_SIZEOF_"

// The structs of a shared submission ring: mmap$weave maps them, and a
// program cannot write memory it mapped, so nothing describes them (a
// struct no call uses is an error of syzkaller's compiler).
var mappedOnly = map[string]bool{
	"drm_weave_ring_desc":   true,
	"drm_weave_ring_header": true,
	"drm_weave_ring_sq":     true,
}

func main() {
	src := flag.String("src", ".", "root of the syzkaller tree")
	file := flag.String("file", "dev_weave.txt", "the description file checked")
	flag.Parse()
	failures := 0
	fail := func(format string, args ...interface{}) {
		fmt.Printf(format+"\n", args...)
		failures++
	}
	var msgs []string
	eh := func(pos ast.Pos, msg string) {
		msgs = append(msgs, fmt.Sprintf("%v: %v", pos, msg))
		if filepath.Base(pos.File) == *file {
			fail("%v: %v", pos, msg)
		}
	}
	dir := filepath.Join(*src, "sys", "linux")
	desc := ast.ParseGlob(filepath.Join(dir, "*.txt"), eh)
	consts := compiler.DeserializeConstFile(filepath.Join(dir, "*.const"), eh)
	if desc == nil || consts == nil {
		fmt.Println(strings.Join(msgs, "\n"))
		fmt.Println("FAIL: the descriptions do not parse")
		os.Exit(1)
	}
	target := targets.Get(targets.Linux, targets.AMD64)
	values := consts.Arch(target.Arch)
	prg := compiler.Compile(desc, values, target, eh)
	if prg == nil {
		fmt.Println(strings.Join(msgs, "\n"))
		fmt.Println("FAIL: syzkaller's compiler rejects the descriptions")
		os.Exit(1)
	}
	calls := 0
	compiled := make(map[string]bool)
	for _, c := range prg.Syscalls {
		compiled[c.Name] = true
	}
	for _, n := range desc.Nodes {
		c, ok := n.(*ast.Call)
		if !ok || filepath.Base(c.Pos.File) != *file {
			continue
		}
		calls++
		if !compiled[c.Name.Name] {
			fail("%v: call %v is not in the compiled tables", c.Pos, c.Name.Name)
		}
	}
	structs := checkSizes(prg, values, fail)
	if failures != 0 {
		fmt.Printf("FAIL: %v problems in %v\n", failures, *file)
		os.Exit(1)
	}
	fmt.Printf("ok: %v calls and %v structs of %v compile for %v/%v\n",
		calls, structs, *file, target.OS, target.Arch)
}

// checkSizes compares each struct the consts name with its description.
func checkSizes(prg *compiler.Prog, values map[string]uint64,
	fail func(string, ...interface{})) int {
	sizes := make(map[string][]uint64)
	for _, t := range prg.Types {
		st, ok := t.(*prog.StructType)
		if !ok || st.Varlen() {
			continue
		}
		sizes[st.TemplateName()] = append(sizes[st.TemplateName()], st.Size())
	}
	var names []string
	for name := range values {
		if strings.HasPrefix(name, sizeofPrefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	checked := 0
	for _, name := range names {
		s := "drm_weave_" + strings.ToLower(strings.TrimPrefix(name, sizeofPrefix))
		got, ok := sizes[s]
		if !ok && mappedOnly[s] {
			continue
		}
		checked++
		if !ok {
			fail("struct %v of the header is not described", s)
			continue
		}
		for _, size := range got {
			if size != values[name] {
				fail("struct %v is described with %v bytes, the header's has %v",
					s, size, values[name])
			}
		}
	}
	return checked
}
