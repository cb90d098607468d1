package io.github.redissonratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.autoconfigure.RateLimitBackendDecorator;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * A decorator right around the lease layer (between {@link RateLimitBackendDecorator#LEASE_ORDER} and
 * {@link RateLimitBackendDecorator#WAITING_ORDER}) that writes every permit a leased limit's callers get, by the
 * receipt of the grant it came from, to the {@link ReceiptLog} of the run under way (none: it writes nothing). Below
 * it the lease layer gives back what its leases did not spend; those refunds are not spends and do not pass here.
 */
final class ReceiptRecorder implements RateLimitBackendDecorator {

    /** Its order: outside the lease layer, inside the wait and the outage policy. */
    static final int ORDER = (LEASE_ORDER + WAITING_ORDER) / 2;

    private volatile ReceiptLog log;

    /** The log the next decisions are written to; null: none. */
    void recordTo(ReceiptLog log) {
        this.log = log;
    }

    @Override
    public RateLimitBackend decorate(RateLimitBackend backend) {
        return new Recording(backend);
    }

    private final class Recording implements DelegatingRateLimitBackend {

        private final RateLimitBackend delegate;

        Recording(RateLimitBackend delegate) {
            this.delegate = delegate;
        }

        @Override
        public RateLimitBackend getDelegate() {
            return delegate;
        }

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            ReceiptLog to = log;
            if (to == null || request.lease() == null) {
                return delegate.acquire(request);
            }
            long started = SpendLog.wallMicros();
            return recorded(to, request, started, delegate.acquire(request));
        }

        @Override
        public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
            ReceiptLog to = log;
            if (to == null || requests.stream().allMatch(request -> request.lease() == null)) {
                return delegate.acquireAll(requests);
            }
            long started = SpendLog.wallMicros();
            List<CompletionStage<Decision>> decisions = delegate.acquireAll(requests);
            List<CompletionStage<Decision>> recorded = new ArrayList<>(decisions.size());
            for (int i = 0; i < decisions.size(); i++) {
                recorded.add(recorded(to, requests.get(i), started, decisions.get(i)));
            }
            return recorded;
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            ReceiptLog to = log;
            if (to != null && request.lease() != null && granted != null && granted.allowed()) {
                long now = SpendLog.wallMicros();
                to.spent(granted.receipt(), -request.permits(), now, now, false);
            }
            return delegate.release(request, granted);
        }

        private CompletionStage<Decision> recorded(ReceiptLog to, AcquireRequest request, long started,
                CompletionStage<Decision> decision) {
            boolean servedInCall = decision.toCompletableFuture().isDone();
            return decision.whenComplete((made, ex) -> {
                if (ex == null && made.allowed() && !request.shadow()) {
                    to.spent(made.receipt(), request.permits(), started, SpendLog.wallMicros(), servedInCall);
                }
            });
        }
    }
}
