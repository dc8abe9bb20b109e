package com.acldump.examples.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.acldump.Acl;
import com.acldump.Binding;
import com.acldump.Model;
import com.acldump.TensorInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * The service under load on loopback, as its own JVM: 3000 requests from 8 concurrent clients,
 * every 100th dumped by header, the flight recorder triggered once on the way. Every answer is
 * the single-threaded reference bit for bit, each dumped request has its own dump (request.json
 * naming its tag), the recorder's report reproduces its execution, RSS stays put after the
 * warm-up, and SIGTERM stops the service cleanly.
 *
 * <p>System properties (run_test.sh): service.classpath (the service's and acldump's jars),
 * service.library.path (libacldump_jni.so's folder). The working directory is the runfiles root
 * (testdata/).
 */
public class ServiceLoadTest {
  static final int REQUESTS = 3000; // numbered 0..2999: input[0] is the request's number
  static final int CLIENTS = 8;
  static final int WARM_UP = REQUESTS / 3;
  static final int DUMP_EVERY = 100; // 30 dumped requests
  static final int TRIGGER_AT = 2000;
  /**
   * RSS may grow by at most this from the end of the warm-up third to the end. The service's JVM
   * runs with its heap committed and touched up front (-Xms = -Xmx, AlwaysPreTouch) and the C1
   * compiler only, so what could grow is native memory: Bindings, tensors, the runtime's own, and
   * what the JIT and class loading still add after the warm-up (measured: +0.6 to +1.2 MB).
   */
  static final long RSS_GROWTH_LIMIT = 20L << 20;
  static final Duration DEADLINE = Duration.ofMinutes(2); // any wait (Bazel's timeout is longer)
  static final String MODEL = "testdata/resnet_tiny.om";

  static float[] readInput() throws IOException {
    byte[] data = Files.readAllBytes(Path.of("testdata/resnet_tiny.input.input.npy"));
    int headerLength = (data[8] & 0xff) | (data[9] & 0xff) << 8;
    String header = new String(data, 10, headerLength, StandardCharsets.US_ASCII);
    assertTrue(header, header.contains("'<f4'"));
    FloatBuffer values = ByteBuffer.wrap(data, 10 + headerLength, data.length - 10 - headerLength)
        .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    float[] input = new float[values.remaining()];
    values.get(input);
    return input;
  }

  /** Every request's outputs, run in this JVM one at a time: what the service must answer. */
  static List<Map<String, float[]>> reference(float[] base) {
    List<Map<String, float[]>> want = new ArrayList<>();
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL);
        Binding binding = model.bind()) {
      FloatBuffer input = binding.input("input").floatBuffer();
      input.put(0, base);
      for (int n = 0; n < REQUESTS; ++n) {
        input.put(0, n);
        binding.run();
        Map<String, float[]> outputs = new HashMap<>();
        for (TensorInfo info : model.outputs()) {
          outputs.put(info.name(), binding.output(info.name()).toFloatArray());
        }
        want.add(outputs);
      }
    }
    return want;
  }

  /** The resident set of process {@code pid} (VmRSS of /proc/{pid}/status), in bytes. */
  static long rss(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        String[] fields = line.trim().split("\\s+");
        return Long.parseLong(fields[1]) << 10;
      }
    }
    throw new IOException("no VmRSS in /proc/" + pid + "/status");
  }

  /** The CPU time process {@code pid} ("self": this one) has used, in seconds. */
  static double cpuSeconds(String pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0; // utime, stime
  }

  static void writeConfig(Path path, Path dumpPath) throws IOException {
    Files.writeString(path, "{\"dump\": {\"dump_path\": " + Json.quote(dumpPath.toString())
        + ", \"dump_mode\": \"output\", \"dump_list\": [{\"model_name\": \"resnet_tiny\"}]}}");
  }

  /** An HTTP answer: its status, body and TAG_HEADER. */
  record Reply(int status, String body, String tag) {}

  /**
   * One request by HttpURLConnection (which keeps connections alive between requests of a
   * thread), with the dump header when {@code dumpConfig} is not null.
   */
  static Reply send(String method, String url, String body, String dumpConfig)
      throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setRequestMethod(method);
    connection.setConnectTimeout((int) DEADLINE.toMillis());
    connection.setReadTimeout((int) DEADLINE.toMillis());
    if (dumpConfig != null) {
      connection.setRequestProperty(InferenceService.DUMP_HEADER, dumpConfig);
    }
    if (body != null) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      connection.setDoOutput(true);
      connection.setRequestProperty("Content-Type", "application/json");
      connection.setFixedLengthStreamingMode(bytes.length);
      try (OutputStream out = connection.getOutputStream()) {
        out.write(bytes);
      }
    }
    int status = connection.getResponseCode();
    try (InputStream in = status < 400 ? connection.getInputStream()
        : connection.getErrorStream()) {
      String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Reply(status, text, connection.getHeaderField(InferenceService.TAG_HEADER));
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(Object value) {
    assertTrue("not a JSON object: " + value, value instanceof Map);
    return (Map<String, Object>) value;
  }

  /**
   * The service as its own JVM. Its stdout and stderr go to files (a pipe read while the process
   * exits may be closed under the reader).
   */
  static final class ServiceProcess {
    final Process process;
    final String url;
    final Path stdout;
    final Path stderr;

    ServiceProcess(Path dir, List<String> args) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          // The heap committed and touched at start, so that RSS measures the rest; C1 only,
          // whose compilations take little memory (C2's arenas moved RSS by -2..+10 MB).
          "-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-Djava.library.path=" + System.getProperty("service.library.path"),
          "-cp", System.getProperty("service.classpath"),
          InferenceService.class.getName(), "-addr", "127.0.0.1:0"));
      command.addAll(args);
      stdout = dir.resolve("service.stdout");
      stderr = dir.resolve("service.stderr");
      process = new ProcessBuilder(command).redirectOutput(stdout.toFile())
          .redirectError(stderr.toFile()).start();
      // Its first line, once it listens: polled, until the deadline.
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      String first = "";
      while (!first.endsWith("\n") && process.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(20);
        first = Files.readString(stdout);
      }
      if (!first.startsWith("listening on http://") || !first.endsWith("\n")) {
        process.destroyForcibly();
        fail("the service did not say it listens (" + first + ")\n" + Files.readString(stderr));
      }
      url = first.substring("listening on ".length()).lines().findFirst().orElseThrow();
    }
  }

  @Test
  public void serviceUnderLoad() throws Exception {
    long start = System.nanoTime();
    float[] base = readInput();
    List<Map<String, float[]>> want = reference(base);
    System.out.printf("reference: %d requests in %d ms%n", REQUESTS,
        (System.nanoTime() - start) / 1_000_000);

    Path dir = Files.createTempDirectory(Path.of(System.getenv().getOrDefault("TEST_TMPDIR",
        System.getProperty("java.io.tmpdir"))), "java-service");
    Path configs = Files.createDirectory(dir.resolve("configs"));
    Path dumps = Files.createDirectory(dir.resolve("dumps"));
    Path replays = Files.createDirectory(dir.resolve("replays"));
    writeConfig(configs.resolve("arm.json"), dumps);
    writeConfig(dir.resolve("recorder.json"), replays);
    ServiceProcess service = new ServiceProcess(dir, List.of("-model", MODEL, "-workers", "4",
        "-dump-config-dir", configs.toString(), "-recorder-config",
        dir.resolve("recorder.json").toString()));
    try {
      check(service, base, want, dumps, replays);
    } finally {
      service.process.destroyForcibly();
    }
  }

  void check(ServiceProcess service, float[] base, List<Map<String, float[]>> want, Path dumps,
      Path replays) throws Exception {
    long pid = service.process.pid();
    // The bodies differ in input[0] only: the other 3071 numbers are written once.
    StringBuilder rest = new StringBuilder();
    for (int i = 1; i < base.length; ++i) {
      rest.append(',').append(Json.number(base[i]));
    }
    String restText = rest.append("]}").toString();

    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    Map<String, Integer> tags = Collections.synchronizedMap(new HashMap<>());
    AtomicInteger done = new AtomicInteger();
    CountDownLatch trigger = new CountDownLatch(1);
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS + 1);

    // The flight recorder, triggered once while the clients run.
    Future<Reply> triggered = clients.submit(() -> {
      trigger.await();
      return send("POST", service.url + "/recorder/trigger?reason=load-test", "", null);
    });

    long loadStart = System.nanoTime();
    load(clients, 0, WARM_UP, service.url, restText, want, failures, tags, done, trigger);
    long rssWarm = rss(pid);
    load(clients, WARM_UP, REQUESTS, service.url, restText, want, failures, tags, done, trigger);
    long rssEnd = rss(pid);
    double seconds = (System.nanoTime() - loadStart) / 1e9;
    System.out.printf("%d requests from %d clients in %.2f s (%.0f/s); RSS after %d: %.1f MB, "
        + "after %d: %.1f MB (%+.1f MB); CPU: the service %.1f s, the test %.1f s%n", REQUESTS,
        CLIENTS, seconds, REQUESTS / seconds, WARM_UP, rssWarm / 1048576.0, REQUESTS,
        rssEnd / 1048576.0, (rssEnd - rssWarm) / 1048576.0, cpuSeconds(Long.toString(pid)),
        cpuSeconds("self"));
    assertTrue(String.join("\n", failures), failures.isEmpty());
    assertEquals(REQUESTS, done.get());
    assertTrue("RSS grew by " + (rssEnd - rssWarm) / 1048576.0 + " MB after the warm-up, more "
        + "than " + (RSS_GROWTH_LIMIT >> 20) + " MB", rssEnd - rssWarm <= RSS_GROWTH_LIMIT);

    // Each dumped request: its own iteration folder, with request.json naming its tag beside the
    // dump files, {dumps}/{time}/{device}/resnet_tiny/{model_id}/{iteration}/.
    assertEquals(REQUESTS / DUMP_EVERY, tags.size());
    Set<String> dumped = new HashSet<>();
    List<Path> requests;
    try (Stream<Path> files = Files.walk(dumps)) {
      requests = files.filter(p -> p.getFileName().toString().equals("request.json")).toList();
    }
    for (Path request : requests) {
      Path rel = dumps.relativize(request);
      assertEquals(rel.toString(), 6, rel.getNameCount());
      assertEquals(rel.toString(), "resnet_tiny", rel.getName(2).toString());
      String tag = (String) object(Json.parse(Files.readString(request))).get("request_tag");
      assertTrue(rel + " names tag " + tag + ": not a dumped request's, or twice",
          tags.containsKey(tag) && dumped.add(tag));
      try (Stream<Path> beside = Files.list(request.getParent())) {
        assertTrue(rel + " has no dump files beside it", beside.count() >= 2);
      }
    }
    assertEquals("request.json files under " + dumps, REQUESTS / DUMP_EVERY, dumped.size());

    // The recorder's report: under its config's dump_path, and reproduced.
    Reply answer = triggered.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    assertEquals(answer.body(), 200, answer.status());
    Map<String, Object> report = object(Json.parse(answer.body()));
    String reportDir = (String) report.get("dir");
    assertEquals(answer.body(), Boolean.TRUE, report.get("reproduced"));
    assertTrue(reportDir, reportDir.startsWith(replays + "/"));
    Map<String, Object> written =
        object(Json.parse(Files.readString(Path.of(reportDir, "recorder.json"))));
    assertEquals("call", object(written.get("trigger")).get("kind"));
    assertEquals(Boolean.TRUE, object(written.get("replay")).get("reproduced"));
    Reply state = send("GET", service.url + "/recorder", null, null);
    Map<String, Object> counts = object(object(Json.parse(state.body())).get("counts"));
    Map<String, Object> last = object(object(Json.parse(state.body())).get("last_report"));
    assertEquals(state.body(), 1, ((Json.Number) counts.get("reports")).longValue());
    assertEquals(state.body(), 1, ((Json.Number) counts.get("reproduced")).longValue());
    assertTrue(state.body(), ((Json.Number) counts.get("recorded")).longValue() >= REQUESTS);
    assertEquals(state.body(), reportDir, last.get("dir"));
    assertEquals(state.body(), Boolean.TRUE, last.get("reproduced"));

    checkRefusals(service.url);
    clients.shutdown();

    // SIGTERM (Process.destroy): a clean shutdown, "stopped", and the JVM's status for SIGTERM.
    service.process.destroy();
    assertTrue("the service did not stop within " + DEADLINE + " after SIGTERM",
        service.process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
    String stderr = Files.readString(service.stderr);
    assertEquals("exit status; stderr:\n" + stderr, 128 + 15, service.process.exitValue());
    assertEquals("the service's stderr", "", stderr);
    assertEquals(List.of("listening on " + service.url, "stopped"),
        Files.readAllLines(service.stdout));
  }

  /** Sends requests [from, to) from the clients; each checks its answers. */
  static void load(ExecutorService clients, int from, int to, String url, String restText,
      List<Map<String, float[]>> want, List<String> failures, Map<String, Integer> tags,
      AtomicInteger done, CountDownLatch trigger) throws Exception {
    AtomicInteger next = new AtomicInteger(from);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < CLIENTS; ++c) {
      running.add(clients.submit(() -> {
        for (int n = next.getAndIncrement(); n < to; n = next.getAndIncrement()) {
          boolean dump = n % DUMP_EVERY == 0;
          try {
            post(n, dump, url, restText, want.get(n), failures, tags);
          } catch (IOException | RuntimeException e) {
            failures.add("request " + n + ": " + e);
          } finally {
            if (done.incrementAndGet() == TRIGGER_AT) {
              trigger.countDown();
            }
          }
        }
      }));
    }
    for (Future<?> f : running) {
      f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  static void post(int n, boolean dump, String url, String restText, Map<String, float[]> want,
      List<String> failures, Map<String, Integer> tags) throws IOException {
    Reply response = send("POST", url + "/infer", "{\"input\":[" + n + restText,
        dump ? "arm.json" : null);
    if (response.status() != 200) {
      failures.add("request " + n + ": " + response.status() + " " + response.body());
      return;
    }
    Map<String, Object> answer = object(Json.parse(response.body()));
    if (dump) {
      Map<String, Object> dumpAnswer = object(answer.get("dump"));
      String tag = (String) dumpAnswer.get("tag");
      if (!tag.equals(response.tag())) {
        failures.add("request " + n + ": tag " + tag + ", header " + response.tag());
      }
      tags.put(tag, n);
    }
    Map<String, Object> outputs = object(answer.get("outputs"));
    for (Map.Entry<String, float[]> expected : want.entrySet()) {
      Map<String, Object> output = object(outputs.get(expected.getKey()));
      List<?> data = (List<?>) output.get("data");
      List<?> shape = (List<?>) output.get("shape");
      float[] values = expected.getValue();
      if (data.size() != values.length || shape.size() != 2
          || ((Json.Number) shape.get(0)).longValue() != 1
          || ((Json.Number) shape.get(1)).longValue() != 10) {
        failures.add("request " + n + ": output " + expected.getKey() + " is " + output);
        continue;
      }
      for (int i = 0; i < values.length; ++i) {
        float got = ((Json.Number) data.get(i)).floatValue();
        if (Float.floatToRawIntBits(got) != Float.floatToRawIntBits(values[i])) {
          failures.add("request " + n + ": " + expected.getKey() + "[" + i + "] = " + got
              + ", the reference " + values[i]);
          break;
        }
      }
    }
  }

  /** The client's mistakes are 400 with the reason, a wrong method 405. */
  static void checkRefusals(String url) throws Exception {
    Object[][] cases = {
      {"POST", "/infer", "{\"input\": [1, 2]}", null, 400, "has 2 values; the model takes 3072"},
      {"POST", "/infer", "{\"image\": []}", null, 400, "no input named 'image'"},
      {"POST", "/infer", "[1, 2]", null, 400, "not a JSON object"},
      {"POST", "/infer", "{\"input\": [1,", null, 400, "not JSON"},
      {"POST", "/infer", "{}", null, 400, "input 'input' is missing"},
      {"POST", "/infer", "{\"input\": [1]}", "../recorder.json", 400, "name a file"},
      {"GET", "/infer", "", null, 405, "use POST"},
      {"POST", "/healthz", "", null, 405, "use GET"},
      {"GET", "/inference", "", null, 404, "no such endpoint"},
      {"GET", "/healthz", "", null, 200, "\"status\":\"ok\""},
    };
    for (Object[] c : cases) {
      Reply response = send((String) c[0], url + c[1], c[2].equals("") ? null : (String) c[2],
          (String) c[3]);
      String what = c[0] + " " + c[1] + " " + c[2] + ": " + response.status() + " "
          + response.body();
      assertEquals(what, c[4], response.status());
      assertTrue(what, response.body().contains((String) c[5]));
    }
  }
}
