/**
 * The idiomatic Java API of acldump's C ABI: {@link com.acldump.Acl} (aclInit / aclFinalize),
 * {@link com.acldump.Model}, {@link com.acldump.DumpSession}; failures throw {@link
 * com.acldump.AclException} with the aclError code and the C library's message. The raw SWIG API
 * is com.acldump.swig.
 *
 * <p>One inference with typed tensors by name ({@link com.acldump.Tensor}: a shape-checked copy
 * of the data in a direct buffer of native byte order), and a {@link com.acldump.Binding} whose
 * tensors are made once and filled in place:
 *
 * <pre>{@code
 * try (Acl acl = Acl.init();
 *     Model model = Model.load("resnet_tiny.om");
 *     Tensor image = Tensor.of(pixels, 1, 3, 32, 32)) { // pixels: float[3 * 32 * 32]
 *   Map<String, Tensor> outputs = model.run(Map.of("input", image));
 *   float[] prob = outputs.get("prob").toFloatArray(); // float32[1,10]
 *
 *   try (Binding binding = model.bind()) {
 *     binding.input("input").floatBuffer().put(pixels);
 *     binding.run(); // no buffers allocated
 *     float first = binding.output("prob").floatBuffer().get(0);
 *   }
 * }
 * }</pre>
 *
 * <p>The same misuse throws the same code and message as in Go (testdata/misuse_cases.json): a
 * tensor of another type or dims given for an input, ACL_ERROR_MODEL_INPUT_NOT_MATCH; an unknown
 * input name or a null tensor, ACL_ERROR_INVALID_PARAM; a closed model,
 * ACL_ERROR_INVALID_MODEL_ID.
 */
package com.acldump;
