package acldump_test

import (
	"errors"
	"fmt"
	"log"

	acldump "github.com/acldump/acldump-go"
)

// One inference with typed tensors by name.
func ExampleModel_RunNamed() {
	if err := acldump.Init(""); err != nil {
		log.Fatal(err)
	}
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()

	image, err := acldump.NewTensor([]int64{1, 3, 32, 32}, make([]float32, 3*32*32))
	if err != nil {
		log.Fatal(err)
	}
	outputs, err := model.RunNamed(map[string]acldump.AnyTensor{"input": image})
	if err != nil {
		log.Fatal(err)
	}
	prob := outputs["prob"].(*acldump.Tensor[float32])
	fmt.Println("prob", prob.Shape(), len(prob.Data()), "values")

	// Misuses are *acldump.Error values with the C library's code, matched by errors.Is.
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"image": image})
	fmt.Println(errors.Is(err, acldump.ErrInvalidParam), err)
	// Output:
	// prob [1 10] 10 values
	// true acl error 100000: the model has no input named 'image' (it has 'input')
}

// A session of bound tensors: fill the input, run, read the output; Run allocates nothing.
func ExampleModel_Bind() {
	if err := acldump.Init(""); err != nil {
		log.Fatal(err)
	}
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()

	b, err := model.Bind()
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	image, err := acldump.InputOf[float32](b, "input")
	if err != nil {
		log.Fatal(err)
	}
	prob, err := acldump.OutputOf[float32](b, "prob")
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		image.Data()[0] = float32(i) // fill the input in place
		if err := b.Run(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("prob", prob.Shape(), len(prob.Data()), "values")
	// Output:
	// prob [1 10] 10 values
}
