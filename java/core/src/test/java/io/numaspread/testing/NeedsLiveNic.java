// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** Reads or changes the live NIC eth0 and its IRQs. Skipped where it cannot run, unless every test must run ({@link MachineRequirements}). */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("live-nic")
@ExtendWith(MachineRequirements.class)
public @interface NeedsLiveNic {}
