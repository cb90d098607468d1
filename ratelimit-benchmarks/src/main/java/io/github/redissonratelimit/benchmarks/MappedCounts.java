package io.github.redissonratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Counters in a file mapped in memory, added to atomically from any thread: what a JVM killed with {@code kill -9}
 * counted before its end is still in the file for another JVM to read.
 */
final class MappedCounts implements AutoCloseable {

    private static final VarHandle COUNTS = MethodHandles.byteBufferViewVarHandle(int[].class,
            ByteOrder.nativeOrder());

    private final FileChannel channel;
    private final MappedByteBuffer counts;

    private MappedCounts(FileChannel channel, MappedByteBuffer counts) {
        this.channel = channel;
        this.counts = counts;
    }

    /** {@code size} counters at {@code file}: new ones at 0 ({@code create}), else those another JVM wrote. */
    static MappedCounts map(Path file, long size, boolean create) {
        try {
            FileChannel channel = create
                    ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                            StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            return new MappedCounts(channel, channel.map(FileChannel.MapMode.READ_WRITE, 0, 4 * size));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    void add(int index, int amount) {
        COUNTS.getAndAdd(counts, 4 * index, amount);
    }

    int at(int index) {
        return (int) COUNTS.getVolatile(counts, 4 * index);
    }

    @Override
    public void close() {
        try {
            channel.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
