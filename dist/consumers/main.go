// A Go service's use of the release: run the bundled model once with a dump config.
// Usage: service <model.om> <acl.json>
package main

import (
	"fmt"
	"math"
	"os"

	acldump "github.com/acldump/acldump-go"
)

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(modelPath, config string) error {
	if err := acldump.Init(""); err != nil {
		return err
	}
	defer acldump.Finalize()
	dump, err := acldump.StartDump(config)
	if err != nil {
		return err
	}
	model, err := acldump.LoadModel(modelPath)
	if err != nil {
		return err
	}
	outputs, err := model.Run(make([]byte, 3*32*32*4))
	if err != nil {
		return err
	}
	sum := float32(0)
	for i := 0; i < 10; i++ {
		sum += math.Float32frombits(uint32(outputs[1][4*i]) | uint32(outputs[1][4*i+1])<<8 |
			uint32(outputs[1][4*i+2])<<16 | uint32(outputs[1][4*i+3])<<24)
	}
	if err := model.Close(); err != nil {
		return err
	}
	if err := dump.Close(); err != nil {
		return err
	}
	version, err := acldump.Version()
	if err != nil {
		return err
	}
	fmt.Printf("version %s, prob sums to %.3f\n", version, sum)
	return nil
}
