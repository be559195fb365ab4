// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.pin.AgentOptions;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
    @Test
    void parsesEveryOption() {
        assertEquals(
                new AgentOptions(
                        List.of("epoll-*", "nio-?"),
                        Optional.empty(),
                        OptionalInt.of(1),
                        OptionalInt.of(4),
                        Mode.CPU,
                        false,
                        false,
                        true,
                        true),
                AgentOptions.parse(
                        "threads=epoll-*|nio-?,node=1,count=4,mode=cpu,leases=off,strict=true,verbose=true"));
        assertEquals(
                new AgentOptions(
                        List.of("io-*"),
                        Optional.of(new InterfaceName("eth0")),
                        OptionalInt.empty(),
                        OptionalInt.empty(),
                        Mode.SIBLINGS,
                        true,
                        true,
                        false,
                        false),
                AgentOptions.parse("threads=io-*,nic=eth0,irqs=apply"));
        assertTrue(AgentOptions.parse("threads=io-*,nic=eth0,leases=on").leases());
    }

    @Test
    void namesWhatIsWrong() {
        List<List<String>> cases = List.of(
                List.of("", "no options"),
                List.of("threads=a,node=0,count=1,speed=9", "unknown option \"speed\""),
                List.of("threads=a,node=0,count=1,node=1", "option \"node\" is given twice"),
                List.of("node=0,count=1", "threads=GLOB is missing"),
                List.of("threads=a,count=1", "nic=IFACE or node=N,count=K is missing"),
                List.of("threads=a,node=0", "node=0 needs count=K"),
                List.of("threads=a,node=0,nic=eth0", "give nic= or node=, not both"),
                List.of("threads=a,node=0,count=0", "count=\"0\" is not a whole number from 1 to 1048576"),
                List.of(
                        "threads=a,node=0,count=1048577",
                        "count=\"1048577\" is not a whole number from 1 to 1048576, the most queues a plan may hold"),
                List.of("threads=a,node=0,count=2147483647", "count=\"2147483647\" is not a whole number from 1 to"),
                List.of("threads=a,node=0,count=99999999999", "count=\"99999999999\" is not a whole number from 1 to"),
                List.of("threads=a,nic=eth0,count=4194304", "count=\"4194304\" is not a whole number from 1 to"),
                List.of("threads=a,node=x,count=1", "node=\"x\" is not a whole number of at least 0"),
                List.of("threads=a,node=0,count=1,mode=smt", "mode=\"smt\" must be one of [siblings, cpu]"),
                List.of("threads=a,node=0,count=1,irqs=apply", "irqs=apply needs nic=IFACE"),
                List.of("threads=a,nic=../x", "invalid interface name \"../x\": it contains '/'"),
                List.of("threads=a,nic=eth0 x", "invalid interface name \"eth0 x\": it contains ' '"),
                List.of("threads=a,node=0,count=1,irqs=now", "irqs=\"now\" must be one of [apply]"),
                List.of("threads=a,node=0,count=1,leases=no", "leases=\"no\" must be one of [on, off]"),
                List.of("threads=a,node=0,count=1,", "option \"\" is not KEY=VALUE"),
                List.of("threads=a,node=0,count=1,strict", "option \"strict\" is not KEY=VALUE"));
        for (List<String> c : cases) {
            NumaspreadException e =
                    assertThrows(NumaspreadException.class, () -> AgentOptions.parse(c.get(0)), c.get(0));
            assertTrue(e.getMessage().startsWith(c.get(1)), c.get(0) + " -> " + e.getMessage());
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind(), c.get(0));
        }
    }

    /** count= is bounded here, by the planner's own bound, before the library or the planner allocates a mask. */
    @Test
    void countIsBoundedByThePlannersBound() {
        assertEquals(
                OptionalInt.of(PlanRequest.MAX_QUEUES),
                AgentOptions.parse("threads=a,node=0,count=" + PlanRequest.MAX_QUEUES)
                        .count());
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> AgentOptions.parse("threads=a,node=0,count=" + (PlanRequest.MAX_QUEUES + 1)));
        assertTrue(e.getMessage().contains("from 1 to " + PlanRequest.MAX_QUEUES), e.getMessage());
    }

    @Test
    void findsStrictInOptionsThatDoNotParse() {
        assertTrue(AgentOptions.strictRequested("threads=a,bogus,strict=true"));
        assertFalse(AgentOptions.strictRequested("threads=a,strict=false"));
        assertFalse(AgentOptions.strictRequested(null));
    }

    /** numaspread attach is strict unless the options say otherwise, by the same reading of strict=. */
    @Test
    void attachAddsStrictUnlessGiven() {
        assertEquals("threads=a,node=0,count=1,strict=true", AgentOptions.strictByDefault("threads=a,node=0,count=1"));
        assertEquals(
                "threads=a,node=0,count=1, strict =false",
                AgentOptions.strictByDefault("threads=a,node=0,count=1, strict =false"));
        assertEquals("threads=a,strict=true,node=0", AgentOptions.strictByDefault("threads=a,strict=true,node=0"));
    }
}
