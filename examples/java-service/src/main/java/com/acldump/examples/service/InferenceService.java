package com.acldump.examples.service;

import com.acldump.Acl;
import com.acldump.AclException;
import com.acldump.Binding;
import com.acldump.Model;
import com.acldump.RecorderCounts;
import com.acldump.RecorderReport;
import com.acldump.Tensor;
import com.acldump.TensorInfo;
import com.acldump.swig.AclDataType;
import com.acldump.swig.AclNativeConstants;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * An HTTP inference service over one acldump model, with the JDK's HttpServer only:
 *
 * <pre>
 * POST /infer             {"input": [3072 numbers]} -> {"model", "outputs": {"fc": {"shape",
 *                         "data"}, ...}}; with "X-Acldump-Dump: arm.json" the request is dumped
 *                         (config arm.json of -dump-config-dir), and the answer's "dump" says where
 * GET  /recorder          the flight recorder's counts and latest report
 * POST /recorder/trigger  a flight recorder report now (?reason=...)
 * GET  /healthz           {"status": "ok", ...}
 * </pre>
 *
 * <p>The model is loaded once; requests run on a fixed pool of threads, each run on one of as
 * many Bindings made at start. SIGINT or SIGTERM shuts it down gracefully (the requests under way
 * finish). See README.md.
 */
public final class InferenceService implements AutoCloseable {
  /** The request header asking for a dump: it names a dump config of -dump-config-dir. */
  public static final String DUMP_HEADER = "X-Acldump-Dump";

  /** The response header with the request tag a dumped request ran with. */
  public static final String TAG_HEADER = "X-Acldump-Tag";

  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  private final Model model;
  private final String modelName;
  private final List<Worker> workers = new ArrayList<>();
  private final BlockingQueue<Worker> idle;
  private final ExecutorService threads;
  private final Path dumpConfigDir; // null: DUMP_HEADER is refused
  private final boolean recorder;
  private final AtomicLong dumped = new AtomicLong();
  private final long maxBodyBytes;
  private final int shutdownSeconds;
  private final Object exchanges = new Object(); // guards active; notified as it drops
  private int active; // exchanges being handled
  private volatile boolean stopping;
  private HttpServer server;

  /** One Binding with its float32 tensors' elements in the model's order. */
  private static final class Worker {
    final Binding binding;
    final FloatBuffer[] inputs;
    final FloatBuffer[] outputs;
    final long[][] outputShapes;

    Worker(Model model) {
      binding = model.bind();
      try {
        List<TensorInfo> ins = model.inputs();
        List<TensorInfo> outs = model.outputs();
        inputs = new FloatBuffer[ins.size()];
        outputs = new FloatBuffer[outs.size()];
        outputShapes = new long[outs.size()][];
        for (int i = 0; i < inputs.length; ++i) {
          inputs[i] = binding.input(ins.get(i).name()).floatBuffer();
        }
        for (int i = 0; i < outputs.length; ++i) {
          Tensor output = binding.output(outs.get(i).name());
          outputs[i] = output.floatBuffer();
          outputShapes[i] = output.shape();
        }
      } catch (RuntimeException e) {
        binding.close();
        throw e;
      }
    }
  }

  /** A mistake of the client's, answered with its status (400 unless it says otherwise). */
  static final class RequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    RequestException(int status, String message) {
      super(message);
      this.status = status;
    }

    RequestException(String message) {
      this(400, message);
    }
  }

  /**
   * Binds {@code workers} Bindings of {@code model}, whose inputs and outputs must be float32 of
   * fixed dims (what the JSON API carries), and a pool of as many threads to run requests on.
   */
  InferenceService(Model model, String modelPath, int workers, Path dumpConfigDir,
      boolean recorder, int shutdownSeconds) {
    List<TensorInfo> all = new ArrayList<>(model.inputs());
    all.addAll(model.outputs());
    long inputElements = 0;
    for (int i = 0; i < all.size(); ++i) {
      TensorInfo info = all.get(i);
      String kind = i < model.inputs().size() ? "input" : "output";
      if (info.dataType() != AclDataType.ACL_FLOAT) {
        throw new IllegalArgumentException(kind + " '" + info.name() + "' is "
            + Tensor.name(info.dataType()) + ": this service carries float32 tensors only");
      }
      for (long d : info.dims()) {
        if (d < 0) {
          throw new IllegalArgumentException(kind + " '" + info.name()
              + "' has dims that vary: this service binds fixed ones");
        }
      }
      if (kind.equals("input")) {
        inputElements += info.size() / 4;
      }
    }
    this.model = model;
    String file = Path.of(modelPath).getFileName().toString();
    this.modelName = file.contains(".") ? file.substring(0, file.lastIndexOf('.')) : file;
    this.idle = new ArrayBlockingQueue<>(workers);
    this.dumpConfigDir = dumpConfigDir;
    this.recorder = recorder;
    this.maxBodyBytes = 4096 + 64 * inputElements; // room for any float's text
    this.shutdownSeconds = shutdownSeconds;
    try {
      for (int i = 0; i < workers; ++i) {
        Worker worker = new Worker(model);
        this.workers.add(worker);
        idle.add(worker);
      }
    } catch (RuntimeException e) {
      closeBindings();
      throw e;
    }
    AtomicInteger count = new AtomicInteger();
    threads = Executors.newFixedThreadPool(workers, task -> {
      Thread thread = new Thread(task, "infer-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Serves on {@code address} until {@link #close()}; the port is {@link #port()}. */
  void start(InetSocketAddress address) throws IOException {
    // Answers go out at once: with Nagle's algorithm against the client's delayed ACKs, each
    // answer of a kept-alive connection waits ~40 ms (the JDK's server leaves it on by default).
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(address, 0);
    server.setExecutor(threads);
    server.createContext("/infer", exact("/infer", "POST", this::handleInfer));
    server.createContext("/recorder", exact("/recorder", "GET", this::handleRecorder));
    server.createContext("/recorder/trigger",
        exact("/recorder/trigger", "POST", this::handleTrigger));
    server.createContext("/healthz", exact("/healthz", "GET", this::handleHealth));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  /**
   * Stops the server: new requests are refused (503) while the ones under way finish (for at
   * most -shutdown-timeout seconds), then it closes; then it waits until no run uses a Binding
   * and frees them. (HttpServer.stop(delay) of JDK 17 waits the whole delay, whatever runs.)
   */
  @Override
  public void close() {
    stopping = true;
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(shutdownSeconds);
      synchronized (exchanges) {
        for (long left = deadline - System.nanoTime(); active > 0 && left > 0;
            left = deadline - System.nanoTime()) {
          TimeUnit.NANOSECONDS.timedWait(exchanges, left);
        }
      }
      if (server != null) {
        server.stop(0);
      }
      threads.shutdown();
      for (int i = 0; i < workers.size(); ++i) {
        idle.take(); // every worker idle: no run uses a Binding
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return; // the Bindings may be in use: leave them to the model's close
    }
    closeBindings();
  }

  /** Counts the exchange in, unless the service is stopping. */
  private boolean enter() {
    synchronized (exchanges) {
      ++active;
    }
    if (stopping) {
      leave();
      return false;
    }
    return true;
  }

  private void leave() {
    synchronized (exchanges) {
      if (--active == 0) {
        exchanges.notifyAll();
      }
    }
  }

  private void closeBindings() {
    for (Worker worker : workers) {
      worker.binding.close();
    }
    workers.clear();
  }

  // ---- HTTP plumbing

  /** An endpoint: the JSON answer to an exchange. */
  @FunctionalInterface
  private interface Endpoint {
    byte[] handle(HttpExchange exchange) throws IOException;
  }

  /**
   * The handler of {@code method} on {@code path} (a context also gets the paths below it: 404
   * for those); it answers the endpoint's JSON, a RequestException's status and message, or 500
   * with the message of anything else.
   */
  private HttpHandler exact(String path, String method, Endpoint endpoint) {
    return exchange -> {
      if (!enter()) {
        try (exchange) {
          reply(exchange, 503, "text/plain", "the service is stopping\n");
        }
        return;
      }
      try (exchange) {
        if (!exchange.getRequestURI().getPath().equals(path)) {
          reply(exchange, 404, "text/plain", "no such endpoint\n");
          return;
        }
        if (!exchange.getRequestMethod().equals(method)) {
          exchange.getResponseHeaders().set("Allow", method);
          reply(exchange, 405, "text/plain", exchange.getRequestMethod()
              + " is not allowed here: use " + method + "\n");
          return;
        }
        byte[] body;
        try {
          body = endpoint.handle(exchange);
        } catch (RequestException e) {
          reply(exchange, e.status, "text/plain", e.getMessage() + "\n");
          return;
        } catch (RuntimeException e) {
          System.err.println("java-service: " + exchange.getRequestMethod() + " " + path + ": "
              + e);
          reply(exchange, 500, "text/plain", e.getMessage() + "\n");
          return;
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      } finally {
        leave();
      }
    };
  }

  private static void reply(HttpExchange exchange, int status, String type, String text)
      throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] utf8(CharSequence text) {
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  // ---- POST /infer

  /**
   * POST /infer: a JSON object with each model input by name as a flat array of its float32
   * elements ({"input": [3072 numbers]}); the answer has every output by name.
   */
  private byte[] handleInfer(HttpExchange exchange) throws IOException {
    String configName = exchange.getRequestHeaders().getFirst(DUMP_HEADER);
    Path dumpConfig = configName == null || configName.isEmpty() ? null : dumpConfig(configName);
    float[][] inputs = decodeInputs(exchange.getRequestBody());
    Worker worker;
    try {
      worker = idle.take(); // a dumped run takes a worker too: at most workers.size() run at once
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestException(503, "the service is stopping");
    }
    try {
      if (dumpConfig == null) {
        return run(worker, inputs);
      }
      String clientId = exchange.getRequestHeaders().getFirst("X-Request-Id");
      return runDumped(inputs, dumpConfig, clientId, exchange);
    } finally {
      idle.add(worker);
    }
  }

  /** The request's inputs in the model's order, checked against the model's. */
  private float[][] decodeInputs(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + 1));
    if (bytes.length > maxBodyBytes) {
      throw new RequestException("the body is larger than " + maxBodyBytes + " bytes");
    }
    Object document;
    try {
      document = Json.parse(new String(bytes, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new RequestException("the body is not JSON: " + e.getMessage());
    }
    if (!(document instanceof Map<?, ?> named)) {
      throw new RequestException("the body is not a JSON object of float32 arrays by input name");
    }
    List<TensorInfo> infos = model.inputs();
    Map<String, String> quoted = new LinkedHashMap<>();
    for (TensorInfo info : infos) {
      quoted.put(info.name(), "'" + info.name() + "'");
    }
    for (Object name : named.keySet()) {
      if (!quoted.containsKey(name)) {
        throw new RequestException("the model has no input named '" + name + "' (it has "
            + String.join(", ", quoted.values()) + ")");
      }
    }
    float[][] inputs = new float[infos.size()][];
    for (int i = 0; i < inputs.length; ++i) {
      TensorInfo info = infos.get(i);
      Object value = named.get(info.name());
      if (value == null) {
        throw new RequestException("input '" + info.name() + "' is missing");
      }
      if (!(value instanceof List<?> elements)) {
        throw new RequestException("input '" + info.name() + "' is not an array of numbers");
      }
      long want = info.size() / 4;
      if (elements.size() != want) {
        throw new RequestException("input '" + info.name() + "' has " + elements.size()
            + " values; the model takes " + want + " (dims " + dims(info.dims()) + ")");
      }
      inputs[i] = new float[elements.size()];
      for (int k = 0; k < inputs[i].length; ++k) {
        if (!(elements.get(k) instanceof Json.Number number)) {
          throw new RequestException("input '" + info.name() + "' holds a non-number at " + k);
        }
        float v = number.floatValue();
        if (Float.isInfinite(v)) {
          throw new RequestException("input '" + info.name() + "' holds " + number.text()
              + " at " + k + ", out of float32's range");
        }
        inputs[i][k] = v;
      }
    }
    return inputs;
  }

  /**
   * One request on a worker's Binding: the inputs written in place, one run, the outputs read
   * out (the Binding's tensors are the worker's).
   */
  private byte[] run(Worker worker, float[][] inputs) {
    for (int i = 0; i < inputs.length; ++i) {
      worker.inputs[i].put(0, inputs[i]);
    }
    worker.binding.run();
    Map<String, float[]> data = new LinkedHashMap<>();
    Map<String, long[]> shapes = new LinkedHashMap<>();
    for (int i = 0; i < worker.outputs.length; ++i) {
      String name = model.outputs().get(i).name();
      float[] values = new float[worker.outputs[i].capacity()];
      worker.outputs[i].get(0, values);
      data.put(name, values);
      shapes.put(name, worker.outputShapes[i]);
    }
    return answer(data, shapes, null);
  }

  /**
   * One request dumped as the config at {@code configPath} says: the model is armed for one
   * execution of the request's own tag, which only this run carries, and disarmed after it (which
   * returns once its files are written). A Binding has no tagged run, so this one request runs
   * through {@link Model#runTagged(String, Map)} on tensors of its data.
   */
  private byte[] runDumped(float[][] inputs, Path configPath, String clientId,
      HttpExchange exchange) throws IOException {
    String prefix = "req";
    if (clientId != null) {
      if (!REQUEST_ID.matcher(clientId).matches()) {
        throw new RequestException("X-Request-Id " + Json.quote(clientId)
            + " is not 1 to 64 of A-Z a-z 0-9 . _ : -");
      }
      prefix = clientId;
    }
    String tag = prefix + "-" + dumped.incrementAndGet(); // unique: one arm per run
    String dumpPath = readDumpPath(configPath);
    try {
      model.armDump(configPath.toString(), 1, tag);
    } catch (AclException e) {
      int code = e.getCode();
      if (code == AclNativeConstants.ACL_ERROR_INVALID_PARAM
          || code == AclNativeConstants.ACL_ERROR_INVALID_FILE
          || code == AclNativeConstants.ACL_ERROR_INVALID_DUMP_CONFIG) {
        throw new RequestException("dump config " + configPath.getFileName() + ": "
            + e.getMessage());
      }
      throw e;
    }
    Map<String, float[]> data = new LinkedHashMap<>();
    Map<String, long[]> shapes = new LinkedHashMap<>();
    String dumpError = null;
    List<Tensor> tensors = new ArrayList<>();
    try {
      Map<String, Tensor> named = new LinkedHashMap<>();
      for (int i = 0; i < inputs.length; ++i) {
        TensorInfo info = model.inputs().get(i);
        Tensor tensor = Tensor.of(inputs[i], info.dims());
        tensors.add(tensor);
        named.put(info.name(), tensor);
      }
      Map<String, Tensor> outputs = model.runTagged(tag, named);
      tensors.addAll(outputs.values());
      for (Map.Entry<String, Tensor> output : outputs.entrySet()) {
        data.put(output.getKey(), output.getValue().toFloatArray());
        shapes.put(output.getKey(), output.getValue().shape());
      }
    } finally {
      for (Tensor tensor : tensors) {
        tensor.close();
      }
      try {
        model.disarmDump(tag);
      } catch (AclException e) {
        dumpError = e.getMessage();
        System.err.println("java-service: dump of " + tag + ": " + e.getMessage());
      }
    }
    StringBuilder dump = new StringBuilder("{\"tag\":").append(Json.quote(tag))
        .append(",\"config\":").append(Json.quote(configPath.getFileName().toString()))
        .append(",\"dump_path\":").append(Json.quote(dumpPath))
        .append(",\"model_id\":").append(model.id());
    if (dumpError != null) {
      dump.append(",\"error\":").append(Json.quote(dumpError));
    }
    exchange.getResponseHeaders().set(TAG_HEADER, tag);
    return answer(data, shapes, dump.append('}').toString());
  }

  /** POST /infer's answer: {"model", "outputs": {name: {"shape", "data"}}, "dump"?}. */
  private byte[] answer(Map<String, float[]> data, Map<String, long[]> shapes, String dump) {
    StringBuilder out = new StringBuilder(512).append("{\"model\":").append(Json.quote(modelName))
        .append(",\"outputs\":{");
    boolean first = true;
    for (Map.Entry<String, float[]> output : data.entrySet()) {
      String name = output.getKey();
      out.append(first ? "" : ",").append(Json.quote(name)).append(":{\"shape\":[");
      long[] shape = shapes.get(name);
      for (int d = 0; d < shape.length; ++d) {
        out.append(d == 0 ? "" : ",").append(shape[d]);
      }
      out.append("],\"data\":[");
      float[] values = output.getValue();
      for (int k = 0; k < values.length; ++k) {
        if (!Float.isFinite(values[k])) {
          // The flight recorder, when started, reports the execution.
          throw new IllegalStateException("output '" + name + "' holds " + values[k] + " at " + k
              + ", which JSON cannot carry");
        }
        out.append(k == 0 ? "" : ",").append(Json.number(values[k]));
      }
      out.append("]}");
      first = false;
    }
    out.append('}');
    if (dump != null) {
      out.append(",\"dump\":").append(dump);
    }
    return utf8(out.append("}\n"));
  }

  /** The path of the dump config DUMP_HEADER names: a file of -dump-config-dir. */
  private Path dumpConfig(String name) {
    if (dumpConfigDir == null) {
      throw new RequestException(DUMP_HEADER
          + ": this service dumps no requests (start it with -dump-config-dir)");
    }
    Path file = Path.of(name).getFileName();
    if (file == null || !file.toString().equals(name) || name.equals(".")
        || name.equals("..")) {
      throw new RequestException(DUMP_HEADER + " " + Json.quote(name)
          + ": name a file of the service's dump config folder");
    }
    Path path = dumpConfigDir.resolve(name);
    if (!Files.isRegularFile(path)) {
      throw new RequestException(DUMP_HEADER + " " + Json.quote(name) + ": no such dump config");
    }
    return path;
  }

  /** The config's dump_path, absolute. */
  private static String readDumpPath(Path configPath) throws IOException {
    Object config;
    try {
      config = Json.parse(Files.readString(configPath));
    } catch (IllegalArgumentException e) {
      throw new RequestException("dump config " + configPath.getFileName() + ": "
          + e.getMessage());
    }
    Object dumpPath = null;
    if (config instanceof Map<?, ?> top && top.get("dump") instanceof Map<?, ?> dump) {
      dumpPath = dump.get("dump_path");
    }
    return Path.of(dumpPath instanceof String path ? path : "").toAbsolutePath().toString();
  }

  private static String dims(long[] dims) {
    StringBuilder out = new StringBuilder("[");
    for (int d = 0; d < dims.length; ++d) {
      out.append(d == 0 ? "" : ",").append(dims[d]);
    }
    return out.append(']').toString();
  }

  // ---- The flight recorder

  private void recorderStarted() {
    if (!recorder) {
      throw new RequestException(404,
          "the flight recorder is not started (start the service with -recorder-config)");
    }
  }

  private static String report(RecorderReport report) {
    return "{\"dir\":" + Json.quote(report.getDir()) + ",\"reproduced\":" + report.isReproduced()
        + ",\"trigger_iteration\":" + report.getTriggerIteration() + "}";
  }

  /** GET /recorder: the flight recorder's counts and its latest report (null before one). */
  private byte[] handleRecorder(HttpExchange exchange) {
    recorderStarted();
    RecorderCounts counts = model.recorderCounts();
    String last = counts.getReports() > 0 ? report(model.lastRecorderReport()) : "null";
    return utf8("{\"counts\":{\"recorded\":" + counts.getRecorded() + ",\"triggers\":"
        + counts.getTriggers() + ",\"reports\":" + counts.getReports() + ",\"reproduced\":"
        + counts.getReproduced() + ",\"skipped\":" + counts.getSkipped() + "},\"last_report\":"
        + last + "}\n");
  }

  /**
   * POST /recorder/trigger[?reason=...]: a report of the newest execution now, with its replay
   * dumped as the recorder's config says.
   */
  private byte[] handleTrigger(HttpExchange exchange) {
    recorderStarted();
    String reason = "";
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null) {
      for (String pair : query.split("&")) {
        if (pair.startsWith("reason=")) {
          reason = URLDecoder.decode(pair.substring(7), StandardCharsets.UTF_8);
        }
      }
    }
    if (reason.getBytes(StandardCharsets.UTF_8).length > 1024) {
      throw new RequestException("reason is longer than 1024 bytes");
    }
    try {
      return utf8(report(model.triggerRecorder(reason)) + "\n");
    } catch (AclException e) {
      if (e.getCode() == AclNativeConstants.ACL_ERROR_INVALID_PARAM) {
        throw new RequestException(409, e.getMessage()); // nothing recorded since the last report
      }
      throw e;
    }
  }

  /** GET /healthz. */
  private byte[] handleHealth(HttpExchange exchange) {
    return utf8("{\"status\":\"ok\",\"model\":" + Json.quote(modelName) + ",\"model_id\":"
        + model.id() + ",\"workers\":" + workers.size() + "}\n");
  }

  // ---- main

  /** The command line. */
  record Options(String model, String host, int port, int workers, String aclConfig,
      Path dumpConfigDir, String recorderConfig, int recorderExecutions, int shutdownSeconds) {
    static final String USAGE = String.join("\n",
        "usage: java-service -model FILE [-addr HOST:PORT] [-workers N] [-acl-config FILE]",
        "         [-dump-config-dir DIR] [-recorder-config FILE] [-recorder-executions N]",
        "         [-shutdown-timeout SECONDS]");

    static Options parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("-addr", "127.0.0.1:8080");
      values.put("-workers", Integer.toString(Runtime.getRuntime().availableProcessors()));
      values.put("-recorder-executions", "8");
      values.put("-shutdown-timeout", "10");
      for (int i = 0; i < args.length; ++i) {
        String flag = args[i].startsWith("--") ? args[i].substring(1) : args[i];
        if (!List.of("-model", "-addr", "-workers", "-acl-config", "-dump-config-dir",
            "-recorder-config", "-recorder-executions", "-shutdown-timeout").contains(flag)) {
          throw new IllegalArgumentException("unknown argument " + args[i]);
        }
        if (i + 1 == args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        values.put(flag, args[++i]); // the last one counts
      }
      if (!values.containsKey("-model")) {
        throw new IllegalArgumentException("-model is required");
      }
      String addr = values.get("-addr");
      int colon = addr.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("-addr " + addr + ": HOST:PORT");
      }
      String dir = values.get("-dump-config-dir");
      return new Options(values.get("-model"), addr.substring(0, colon),
          number(values, "-addr", addr.substring(colon + 1), 0, 65535),
          number(values, "-workers", values.get("-workers"), 1, 1024),
          values.get("-acl-config"), dir == null ? null : Path.of(dir),
          values.get("-recorder-config"),
          number(values, "-recorder-executions", values.get("-recorder-executions"), 1, 1024),
          number(values, "-shutdown-timeout", values.get("-shutdown-timeout"), 0, 3600));
    }

    private static int number(Map<String, String> values, String flag, String text, int min,
        int max) {
      try {
        int value = Integer.parseInt(text);
        if (value >= min && value <= max) {
          return value;
        }
      } catch (NumberFormatException e) {
        // below
      }
      throw new IllegalArgumentException(flag + " " + text + ": a number from " + min + " to "
          + max);
    }
  }

  /**
   * Serves until {@code stop} counts down, then shuts down: the server first (requests under way
   * finish), then the Bindings, the model and acldump. Prints "listening on http://HOST:PORT" once
   * it accepts connections.
   */
  static void serve(Options options, CountDownLatch stop) throws IOException, InterruptedException {
    try (Acl acl = Acl.init(options.aclConfig());
        Model model = Model.load(options.model())) {
      if (options.recorderConfig() != null) {
        model.startRecorder(options.recorderConfig(), options.recorderExecutions(),
            Model.RECORDER_DEFAULT);
      }
      try (InferenceService service = new InferenceService(model, options.model(),
          options.workers(), options.dumpConfigDir(), options.recorderConfig() != null,
          options.shutdownSeconds())) {
        service.start(new InetSocketAddress(options.host(), options.port()));
        System.out.println("listening on http://" + options.host() + ":" + service.port());
        stop.await();
      }
    }
  }

  /**
   * SIGINT and SIGTERM (the JVM's shutdown hooks; a flight recorder could take SIGUSR2, which
   * HotSpot uses itself) stop the service gracefully: "stopped" is printed once everything is
   * closed, and the JVM exits with 130 or 143 as it does on those signals.
   */
  public static void main(String[] args) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("java-service: " + e.getMessage() + "\n" + Options.USAGE);
      System.exit(2);
      return;
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.countDown();
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "shutdown"));
    int status = 0;
    try {
      serve(options, stop);
      System.out.println("stopped");
    } catch (IOException | RuntimeException e) {
      System.err.println("java-service: " + e);
      status = 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 1;
    } finally {
      System.out.flush();
      stopped.countDown();
    }
    if (status != 0) {
      System.exit(status);
    }
  }
}
