package io.github.redissonratelimit.redis;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Encoder;

/**
 * The codec of this project's script calls: UTF-8 strings like {@link StringCodec}, with the arguments encoded into
 * heap buffers instead of Netty's pooled direct ones. Redisson (seen with 4.7) does not release the argument buffers
 * of a call that fails while it reconnects to a failed master (a Sentinel failover): a pooled buffer left so never
 * returns to Netty's pool (Netty reports a {@code LEAK}), a heap buffer is reclaimed by the garbage collector like any
 * other object. The arguments are short (a few numbers and the declared config), so the copy into the socket's buffer
 * costs nothing measurable.
 */
final class ScriptCodec extends StringCodec {

    static final ScriptCodec INSTANCE = new ScriptCodec();

    private static final Encoder ENCODER = value -> Unpooled.wrappedBuffer(
            value.toString().getBytes(StandardCharsets.UTF_8));

    @Override
    public Encoder getValueEncoder() {
        return ENCODER;
    }
}
