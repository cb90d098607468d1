package io.github.redissonratelimit.autoconfigure.routes;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A servlet response that settles what depends on its status ({@code charge-when}) once, just before it starts its
 * body or ends with an error or a redirect, while its headers can still be set: the status is then final. A response
 * that never starts a body is settled by {@link #settle()} at the end of the request.
 */
final class StatusSettledResponse extends HttpServletResponseWrapper {

    private static final Log logger = LogFactory.getLog(StatusSettledResponse.class);

    private final IntConsumer settlement;
    private final AtomicBoolean settled = new AtomicBoolean();

    /** @param settlement told the status, once */
    StatusSettledResponse(HttpServletResponse response, IntConsumer settlement) {
        super(response);
        this.settlement = settlement;
    }

    /** Settles with the status as it is now, unless the response was settled already. */
    void settle() {
        settle(getStatus());
    }

    /** Settles with {@code status}, e.g. for a request that failed before it set one, unless settled already. */
    void settleAs(int status) {
        settle(status);
    }

    private void settle(int status) {
        if (settled.compareAndSet(false, true)) {
            try {
                settlement.accept(status);
            }
            catch (RuntimeException ex) {
                // the answer goes out as it is: a permit not given back returns when its grant leaves the window
                logger.warn("Could not settle the charge-when of a " + status + " response", ex);
            }
        }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        settle();
        return super.getOutputStream();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        settle();
        return super.getWriter();
    }

    @Override
    public void flushBuffer() throws IOException {
        settle();
        super.flushBuffer();
    }

    @Override
    public void sendError(int status, String message) throws IOException {
        settle(status);
        super.sendError(status, message);
    }

    @Override
    public void sendError(int status) throws IOException {
        settle(status);
        super.sendError(status);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        settle(HttpServletResponse.SC_FOUND);
        super.sendRedirect(location);
    }
}
