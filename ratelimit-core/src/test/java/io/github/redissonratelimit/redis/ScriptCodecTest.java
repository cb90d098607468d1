package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/**
 * Script arguments are heap buffers, which the garbage collector reclaims when Redisson drops them unreleased (a call
 * failing while it reconnects to a failed master); {@link StringCodec} takes them from Netty's pool.
 */
class ScriptCodecTest {

    @Test
    void encodesArgumentsAsUtf8IntoHeapBuffersOutsideNettysPool() throws Exception {
        ByteBuf ours = ScriptCodec.INSTANCE.getValueEncoder().encode("1:60000:rate-é");
        ByteBuf redissons = StringCodec.INSTANCE.getValueEncoder().encode("1:60000:rate-é");
        try {
            assertThat(ours.toString(StandardCharsets.UTF_8)).isEqualTo(redissons.toString(StandardCharsets.UTF_8))
                    .isEqualTo("1:60000:rate-é");
            assertThat(ours.isDirect()).isFalse();
            assertThat(ours.alloc()).isNotInstanceOf(PooledByteBufAllocator.class);
            assertThat(redissons.alloc()).isInstanceOf(PooledByteBufAllocator.class);
        }
        finally {
            ours.release();
            redissons.release();
        }
    }

    @Test
    void decodesRepliesAsUtf8Strings() throws Exception {
        ByteBuf reply = Unpooled.copiedBuffer("42:é", StandardCharsets.UTF_8);
        try {
            assertThat(ScriptCodec.INSTANCE.getValueDecoder().decode(reply, null)).isEqualTo("42:é");
        }
        finally {
            reply.release();
        }
    }
}
