package io.github.redissonratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.redisson.api.RedissonClient;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import io.github.redissonratelimit.test.redis.RedisServerProcess;

/**
 * What the limiter costs the server per HTTP request, in bytes allocated and CPU time of the server's threads
 * (Tomcat's request threads, and every other thread of the JVM but the client's), counted by the JVM for each
 * thread: unlike requests per second, these do not depend on what else the machine runs, so one change's effect
 * shows in one run ({@code --only http-cost}). The endpoints take turns in each round; the figures are the
 * medians of the rounds, and the limiter's share is the limited endpoint's minus its unlimited twin's.
 */
final class HttpCost {

    static final String COMMAND = "./mvnw -q -pl ratelimit-benchmarks -am -DskipTests package exec:exec "
            + "-Dbenchmark.args=\"--only http-cost\"";

    private static final int CONNECTIONS = 16;
    private static final int REQUESTS_PER_ROUND = 20_000;
    private static final int WARMUP_REQUESTS = 60_000;
    private static final List<String> ENDPOINTS = List.of("unlimited", "leased", "limited");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private HttpCost() {
    }

    static void runAlone(Settings settings) throws Exception {
        int rounds = settings.quick() ? 2 : 7;
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            RedissonClient redisson = BenchmarkMain.newRedisson(server.port());
            try (ConfigurableApplicationContext app = HttpApplication.start(redisson)) {
                int port = ((WebServerApplicationContext) app).getWebServer().getPort();
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                for (String endpoint : ENDPOINTS) {
                    load(client, port, endpoint, WARMUP_REQUESTS);
                }
                Map<String, List<double[]>> perRequest = new HashMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < ENDPOINTS.size(); i++) {
                        String endpoint = ENDPOINTS.get((i + round) % ENDPOINTS.size());
                        Map<Long, long[]> before = serverThreads();
                        load(client, port, endpoint, REQUESTS_PER_ROUND);
                        perRequest.computeIfAbsent(endpoint, e -> new ArrayList<>())
                                .add(spent(before, serverThreads(), REQUESTS_PER_ROUND));
                    }
                }
                report(perRequest, rounds);
                inProcess(app.getBean(HttpApplication.Endpoints.class), rounds);
            }
            finally {
                redisson.shutdown();
            }
        }
    }

    /**
     * The endpoint methods called on this thread through their Spring proxy, with a request and response of their
     * own bound as Spring MVC binds them (the rate limit headers are written): what the limiter adds to a call
     * without Tomcat, the client or the other threads, so that its bytes per call are the same from run to run.
     */
    static void inProcess(HttpApplication.Endpoints endpoints, int rounds) {
        Map<String, Object> attributes = new HashMap<>();
        Map<String, String> headers = new HashMap<>();
        HttpServletRequest request = servletProxy(HttpServletRequest.class, (method, args) -> switch (method) {
            case "getAttribute" -> attributes.get((String) args[0]);
            case "setAttribute" -> attributes.put((String) args[0], args[1]);
            default -> null;
        });
        HttpServletResponse response = servletProxy(HttpServletResponse.class, (method, args) -> switch (method) {
            case "isCommitted" -> false;
            case "setHeader" -> headers.put((String) args[0], (String) args[1]);
            default -> null;
        });
        RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request, response));
        Map<String, Function<String, String>> calls = new LinkedHashMap<>();
        calls.put("unlimited", endpoints::unlimited);
        calls.put("leased", endpoints::leased); // the limited one would measure its Redis round trips' waits
        Map<String, List<double[]>> perCall = new HashMap<>();
        try {
            for (int round = -3; round < rounds; round++) { // the first rounds warm up
                for (Map.Entry<String, Function<String, String>> call : calls.entrySet()) {
                    long id = Thread.currentThread().getId();
                    long bytes = THREADS.getThreadAllocatedBytes(id);
                    long cpu = THREADS.getThreadCpuTime(id);
                    for (int n = 0; n < REQUESTS_PER_ROUND; n++) {
                        attributes.clear(); // a new request each time
                        call.getValue().apply(Users.id(n % Users.COUNT));
                    }
                    if (round >= 0) {
                        perCall.computeIfAbsent(call.getKey(), key -> new ArrayList<>()).add(new double[] {
                                (THREADS.getThreadAllocatedBytes(id) - bytes) / (double) REQUESTS_PER_ROUND,
                                (THREADS.getThreadCpuTime(id) - cpu) / 1000.0 / REQUESTS_PER_ROUND });
                    }
                }
            }
        }
        finally {
            RequestContextHolder.resetRequestAttributes();
        }
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "The endpoint methods called in process on "
                + "one thread, %,d calls per round, medians of %d rounds:%n%n| endpoint | bytes/call | CPU µs/call |%n"
                + "| --- | ---: | ---: |%n", REQUESTS_PER_ROUND, rounds));
        double[] unlimited = medians(perCall.get("unlimited"), 2);
        for (String endpoint : calls.keySet()) {
            double[] m = medians(perCall.get(endpoint), 2);
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f |%n", endpoint, m[0], m[1]));
        }
        for (String endpoint : List.of("leased")) {
            double[] m = medians(perCall.get(endpoint), 2);
            md.append(String.format(Locale.ROOT, "| %s − unlimited | %,.0f | %.2f |%n", endpoint, m[0] - unlimited[0],
                    m[1] - unlimited[1]));
        }
        System.out.println(md);
    }

    @SuppressWarnings("unchecked")
    private static <T> T servletProxy(Class<T> type, BiFunction<String, Object[], Object> methods) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type },
                (proxy, method, args) -> methods.apply(method.getName(), args));
    }

    private static void report(Map<String, List<double[]>> perRequest, int rounds) {
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "%d connections, %,d requests per endpoint "
                + "and round, medians of %d rounds%n%n", CONNECTIONS, REQUESTS_PER_ROUND, rounds));
        md.append("| endpoint | request threads: bytes/req | CPU µs/req | other server threads: bytes/req "
                + "| CPU µs/req |\n| --- | ---: | ---: | ---: | ---: |\n");
        double[] unlimited = medians(perRequest.get("unlimited"), 4);
        for (String endpoint : ENDPOINTS) {
            double[] m = medians(perRequest.get(endpoint), 4);
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %,.0f | %.1f |%n", endpoint, m[0], m[1], m[2],
                    m[3]));
        }
        for (String endpoint : List.of("leased", "limited")) {
            double[] m = medians(perRequest.get(endpoint), 4);
            md.append(String.format(Locale.ROOT, "| %s − unlimited | %,.0f | %.1f | %,.0f | %.1f |%n", endpoint,
                    m[0] - unlimited[0], m[1] - unlimited[1], m[2] - unlimited[2], m[3] - unlimited[3]));
        }
        System.out.println(md);
    }

    private static double[] medians(List<double[]> rounds, int columns) {
        double[] medians = new double[columns];
        for (int i = 0; i < medians.length; i++) {
            int column = i;
            medians[i] = Stats.median(rounds.stream().map(round -> round[column]).toList());
        }
        return medians;
    }

    /** {@code CONNECTIONS} closed-loop clients sending {@code requests} requests in all to one endpoint. */
    private static void load(HttpClient client, int port, String endpoint, int requests) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            Thread thread = new Thread(() -> {
                for (int n = next.getAndIncrement(); n < requests; n = next.getAndIncrement()) {
                    send(client, URI.create("http://127.0.0.1:" + port + "/" + endpoint + "/"
                            + Users.id(n % Users.COUNT)));
                }
            }, "cost-client-" + c);
            thread.start();
            clients.add(thread);
        }
        for (Thread thread : clients) {
            thread.join();
        }
    }

    private static void send(HttpClient client, URI uri) {
        try {
            int status = client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
            if (status != 200) {
                throw new IllegalStateException("HTTP " + status + " from " + uri);
            }
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Per live thread that is not the client's: {request thread 1/0, allocated bytes, CPU ns}. */
    private static Map<Long, long[]> serverThreads() {
        Map<Long, long[]> threads = new HashMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (name.startsWith("cost-client-") || name.startsWith("HttpClient-")) {
                continue;
            }
            @SuppressWarnings("deprecation") // Thread.threadId() is Java 19's
            long id = thread.getId();
            threads.put(id, new long[] { name.contains("-exec-") ? 1 : 0, THREADS.getThreadAllocatedBytes(id),
                    THREADS.getThreadCpuTime(id) });
        }
        return threads;
    }

    /** {request threads' bytes, their CPU µs, other threads' bytes, their CPU µs} per request. */
    private static double[] spent(Map<Long, long[]> before, Map<Long, long[]> after, int requests) {
        double[] spent = new double[4];
        for (Map.Entry<Long, long[]> thread : after.entrySet()) {
            long[] now = thread.getValue();
            long[] then = before.getOrDefault(thread.getKey(), new long[] { now[0], 0, 0 });
            int column = now[0] == 1 ? 0 : 2;
            spent[column] += now[1] - then[1];
            spent[column + 1] += (now[2] - then[2]) / 1000.0;
        }
        for (int i = 0; i < spent.length; i++) {
            spent[i] /= requests;
        }
        return spent;
    }
}
