// τ²-bench's telecom domain, the user's side (src/tau2/domains/telecom/user_data_model.py, user_tools.py): the
// user's phone (a mock device: SIM, radios, APN, VPN, apps) and surroundings (signal per network, abroad or not,
// what the carrier allows), the 30 tools the user simulator calls on it, the functions tasks use to break it, and
// the assertions that check it. Every tool answers text, as τ²-bench's do; the network search is its
// simulate_network_search, rule by rule.
import { parse as parseToml } from "smol-toml";
import { floatRepr, pythonRound } from "../../python/float.ts";
import { pythonStringRepr } from "../../python/repr.ts";
import { deepUpdate } from "./deep-update.ts";
import type { Tau2Tool, Tau2UserSide } from "./domain.ts";
import { TELECOM_USER_TOOL_SCHEMAS } from "./telecom-schemas.ts";

type Obj = Record<string, any>;

const NETWORK_MODES = ["4g_5g_preferred", "4g_only", "3g_only", "2g_only"];
const PERFORMANCE_ENUM: Record<string, string> = { unknown: "UNKNOWN", poor: "POOR", fair: "FAIR", good: "GOOD", excellent: "EXCELLENT" };

const defaultApn = (): Obj => ({ apn_name: "internet", reset_at_reboot: false, mms_apn: "mms", mmsc_url: "http://mms.carrier.com/mms/wapenc", mms_proxy: null, mms_port: null });
const permissions = (p: Obj = {}): Obj => ({ sms: false, storage: false, phone: false, network: false, ...p });
function defaultDevice(): Obj {
  return {
    sim_card_status: "active", sim_card_missing: false, airplane_mode: false, network_signal_strength: "good", network_technology_connected: "5G", network_connection_status: "connected",
    battery_level: 80, data_enabled: true, roaming_enabled: false, network_mode_preference: "4g_5g_preferred", active_apn_settings: defaultApn(), wifi_enabled: false, wifi_connected: false,
    wifi_ssid: null, wifi_signal_strength: "none", wifi_calling_enabled: false, wifi_calling_mms_over_wifi: false, data_saver_mode: false, vpn_enabled_setting: false, vpn_connected: false,
    vpn_details: null,
    app_statuses: { messaging: { app_name: "messaging", permissions: permissions({ sms: true, storage: true, phone: true }) }, browser: { app_name: "browser", permissions: permissions({ network: true, storage: true }) } },
  };
}
const defaultSurroundings = (): Obj => ({ name: null, phone_number: null, is_abroad: false, roaming_allowed: false, signal_strength: { "2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent" }, mobile_data_usage_exceeded: false, line_active: true, payment_request: null });

/** TelecomUserDB.load(user_db.toml): the TOML over the models' defaults (an app's permissions default to all off). */
export function loadTelecomUserDb(text: string): Obj {
  const raw = JSON.parse(JSON.stringify(parseToml(text))) as Obj;
  const device = defaultDevice();
  const rawDevice = { ...(raw.device ?? {}) };
  // A dict of models validates whole: the TOML's app list replaces the default one, each app with all-off defaults.
  if (rawDevice.app_statuses) {
    device.app_statuses = Object.fromEntries(Object.entries(rawDevice.app_statuses as Obj).map(([name, app]) => [name, { app_name: app.app_name, permissions: permissions(app.permissions) }]));
    delete rawDevice.app_statuses;
  }
  if (rawDevice.active_apn_settings) {
    device.active_apn_settings = { ...defaultApn(), ...rawDevice.active_apn_settings };
    delete rawDevice.active_apn_settings;
  }
  Object.assign(device, rawDevice);
  return { device, surroundings: deepUpdate(defaultSurroundings(), raw.surroundings ?? {}) };
}

/** The user toolkit over one user DB; `defaultVpn` is the toolkit's class attribute, which break_vpn mutates. */
class Phone {
  constructor(
    readonly db: Obj,
    readonly defaultVpn: Obj,
  ) {}
  get device(): Obj {
    return this.db.device;
  }
  get surroundings(): Obj {
    return this.db.surroundings;
  }

  simStatus(): string {
    return this.device.sim_card_missing ? "missing" : this.device.sim_card_status;
  }

  statusBar(): string {
    const d = this.device;
    const indicators: string[] = [];
    if (d.airplane_mode) indicators.push("✈️ Airplane Mode");
    else {
      const signal: Record<string, string> = { none: "📵 No Signal", poor: "📶¹ Poor", fair: "📶² Fair", good: "📶³ Good", excellent: "📶⁴ Excellent" };
      indicators.push(signal[d.network_signal_strength] ?? "📵 No Signal");
      if (d.network_technology_connected !== "none") indicators.push(d.network_technology_connected);
      if (d.data_enabled && d.network_technology_connected !== "none") {
        indicators.push("📱 Data Enabled");
        if (d.data_saver_mode) indicators.push("🔽 Data Saver");
      } else indicators.push("📵 Data Disabled");
    }
    if (d.wifi_enabled && d.wifi_connected) indicators.push(d.wifi_ssid ? `📡 Connected to ${d.wifi_ssid}` : "📡 Enabled");
    if (d.vpn_connected) indicators.push("🔒 VPN Connected");
    indicators.push(`🔋 ${d.battery_level}%`);
    return indicators.join(" | ");
  }
  withBar = (update: string) => `${update}\nStatus Bar: ${this.statusBar()}`;

  /** simulate_network_search: the SIM, then the preferred network's signal where the user is; airplane mode, a broken APN or an inactive line mean no service. */
  networkSearch(): void {
    const d = this.device;
    const signalOf = (tech: string) => this.surroundings.signal_strength[tech] ?? "none";
    const noService = () => Object.assign(d, { network_connection_status: "no_service", network_technology_connected: "none", network_signal_strength: "none" });
    if (this.simStatus() === "active") {
      d.network_connection_status = "connected";
      const pref = d.network_mode_preference;
      const connect = (tech: string) => Object.assign(d, { network_technology_connected: tech, network_signal_strength: signalOf(tech) });
      if (pref === "4g_5g_preferred") connect(signalOf("5G") === "none" ? "4G" : "5G");
      else if (pref === "3g_only") connect("3G");
      else if (pref === "2g_only") connect("2G");
      else connect("4G");
    } else noService();
    if (d.airplane_mode || d.active_apn_settings.apn_name === "broken" || !this.surroundings.line_active) noService();
  }

  mobileDataWorking(): boolean {
    const d = this.device;
    if (d.airplane_mode || d.network_signal_strength === "none") return false;
    if (d.network_connection_status === "no_service") return false;
    if (this.surroundings.is_abroad && (!d.roaming_enabled || !this.surroundings.roaming_allowed)) return false;
    if (!d.data_enabled) return false;
    return !this.surroundings.mobile_data_usage_exceeded;
  }

  /** _run_speed_test: the midpoint of the technology's range, scaled by the signal, a poor VPN (×0.1) and data saver (×0.2), round(…, 2). */
  speedTest(): [number | null, string] {
    const d = this.device;
    if (!this.mobileDataWorking()) return [null, "No Connection"];
    let factor = d.vpn_connected && d.vpn_details && d.vpn_details.server_performance === "poor" ? 0.1 : 1.0;
    if (d.data_saver_mode) factor *= 0.2;
    const [min, max] = ({ "2G": [0.1, 0.4], "3G": [1.0, 5.0], "4G": [10.0, 100.0], "5G": [50.0, 500.0] } as Record<string, number[]>)[d.network_technology_connected] ?? [0, 0];
    const signal = ({ poor: 0.2, fair: 0.5, good: 0.8, excellent: 1.0 } as Record<string, number>)[d.network_signal_strength] ?? 0;
    const speed = pythonRound(((min! + max!) / 2.0) * signal * factor, 2);
    const desc = speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
    return [speed, desc];
  }

  canSendMms(): boolean {
    const d = this.device;
    if (!this.mobileDataWorking()) return false;
    if (d.network_technology_connected === "2G") return false;
    if (d.wifi_calling_enabled && d.wifi_calling_mms_over_wifi) return false;
    if (d.active_apn_settings.mmsc_url == null) return false;
    const app = d.app_statuses.messaging;
    return Boolean(app && app.permissions.storage && app.permissions.sms);
  }

  toggleAirplane(): boolean {
    const d = this.device;
    const wasOn = d.airplane_mode;
    d.airplane_mode = !wasOn;
    const wifiOff = () => Object.assign(d, { wifi_connected: false, wifi_ssid: null, wifi_signal_strength: "none" });
    if (wasOn) {
      d.network_connection_status = "searching";
      if (d.wifi_enabled) wifiOff();
    } else {
      wifiOff();
      if (d.vpn_connected) this.disconnectVpn();
    }
    this.networkSearch();
    return d.airplane_mode;
  }
  toggle(field: string, search: boolean): boolean {
    this.device[field] = !this.device[field];
    if (search) this.networkSearch();
    return this.device[field];
  }
  connectVpn(): boolean | null {
    if (this.device.vpn_connected) return null;
    this.device.vpn_connected = true;
    // The class attribute itself, not a copy: break_vpn's change shows in every later connection (τ²-bench's aliasing).
    this.device.vpn_details = this.defaultVpn;
    return true;
  }
  disconnectVpn(): boolean {
    if (!this.device.vpn_connected) return false;
    this.device.vpn_connected = false;
    this.device.vpn_details = null;
    return true;
  }
  allowedPermissions(app: Obj): string[] {
    return Object.entries(app.permissions as Obj).filter(([, allowed]) => allowed).map(([name]) => name.replaceAll("_", " ").toLowerCase());
  }
}

const onOff = (on: boolean) => (on ? "ON" : "OFF");
const yesNo = (on: boolean) => (on ? "Yes" : "No");
/** Python's repr of vpn_details.model_dump(): a dict whose enum value prints as <PerformanceLevel.X: 'x'>. */
const vpnDetailsRepr = (v: Obj) =>
  `{'server_address': ${v.server_address == null ? "None" : pythonStringRepr(v.server_address)}, 'protocol': ${v.protocol == null ? "None" : pythonStringRepr(v.protocol)}, 'server_performance': <PerformanceLevel.${PERFORMANCE_ENUM[v.server_performance]}: '${v.server_performance}'>}`;

type PhoneTool = (phone: Phone, a: Obj) => unknown;
const READ: Record<string, PhoneTool> = {
  check_status_bar: (p) => `Status Bar: ${p.statusBar()}`,
  check_network_status(p) {
    const d = p.device;
    const lines = [
      `Airplane Mode: ${onOff(d.airplane_mode)}`, `SIM Card Status: ${p.simStatus()}`, `Cellular Connection: ${d.network_connection_status}`, `Cellular Signal: ${d.network_signal_strength}`,
      `Cellular Network Type: ${d.network_technology_connected}`, `Mobile Data Enabled: ${yesNo(d.data_enabled)}`, `Data Roaming Enabled: ${yesNo(d.roaming_enabled)}`,
      `Wi-Fi Radio: ${onOff(d.wifi_enabled)}`, `Wi-Fi Connected: ${yesNo(d.wifi_connected)}`,
    ];
    if (d.wifi_connected) lines.push(`Connected Wi-Fi Network: ${d.wifi_ssid === null ? "None" : d.wifi_ssid}`);
    return lines.join("\n");
  },
  check_network_mode_preference: (p) => `Network Mode Preference: ${p.device.network_mode_preference}`,
  run_speed_test(p) {
    const [speed, desc] = p.speedTest();
    if (speed === null) return `Speed test failed: ${desc || "Could not determine speed"}.`;
    const advice: Record<string, string> = {
      "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
      Poor: "Connection is slow. Web browsing may be sluggish, streaming difficult.",
      Fair: "Connection is okay for web browsing and some standard definition streaming.",
      Good: "Connection is good for most activities, including HD streaming.",
      Excellent: "Connection is very fast.",
    };
    return `Speed Test Result: ${speed.toFixed(2)} Mbps (${desc}). ${advice[desc] ?? ""}`;
  },
  check_sim_status: (p) =>
    ({ active: "Your SIM card is active and working.", missing: "No SIM card detected in the phone.", locked_pin: "The SIM card is locked with a PIN code.", locked_puk: "The SIM card is locked with a PUK code." })[p.simStatus()] ?? `Unknown SIM status: ${p.simStatus()}`,
  check_data_restriction_status: (p) => (p.device.data_saver_mode ? "Data Saver mode is ON (limits data usage)." : "Data Saver mode is OFF."),
  check_apn_settings(p) {
    const apn = p.device.active_apn_settings;
    return `Current APN Name: ${apn.apn_name || "Not Set"}\nMMSC URL (for picture messages): ${apn.mmsc_url || "Not Set"}\n(These are technical settings, usually best left unchanged.)`;
  },
  check_wifi_status(p) {
    const d = p.device;
    if (!d.wifi_enabled) return "Wi-Fi is turned OFF.";
    return d.wifi_connected ? `Wi-Fi is ON and connected to '${d.wifi_ssid === null ? "None" : d.wifi_ssid}'. Signal strength: ${d.wifi_signal_strength}.` : "Wi-Fi is ON but not connected to any network.";
  },
  check_wifi_calling_status: (p) => `Wi-Fi Calling is currently turned ${onOff(p.device.wifi_calling_enabled)}.`,
  check_vpn_status(p) {
    const d = p.device;
    if (d.vpn_connected) return d.vpn_details ? `VPN is ON and connected. Details: ${vpnDetailsRepr(d.vpn_details)}` : "VPN is ON and connected (no specific details available).";
    return d.vpn_enabled_setting ? "VPN is turned ON in settings, but currently not connected." : "VPN is turned OFF.";
  },
  check_installed_apps: (p) => `The following apps are installed on the phone: ${Object.keys(p.device.app_statuses).join(", ")}`,
  check_app_status(p, a) {
    const app = p.device.app_statuses[a.app_name];
    if (!app) return `App '${a.app_name}' not found on this phone.`;
    const lines = [`Status for App: ${a.app_name}`];
    const allowed = p.allowedPermissions(app);
    if (allowed.length === 0) lines.push(" - Permissions: None granted.");
    else lines.push(" - Permissions Granted:", ...allowed.map((perm) => `   - ${perm}`));
    return lines.join("\n");
  },
  check_app_permissions(p, a) {
    const app = p.device.app_statuses[a.app_name];
    if (!app) return `App '${a.app_name}' not found on this phone.`;
    const allowed = p.allowedPermissions(app);
    return allowed.length === 0 ? `App '${a.app_name}' currently has no permissions granted.` : `App '${a.app_name}' has permission for: ${allowed.join(", ")}.`;
  },
  can_send_mms: (p) => (p.canSendMms() ? "Your messaging app can send MMS messages." : "Your messaging app cannot send MMS messages."),
  check_payment_request(p) {
    const request = p.surroundings.payment_request;
    return request == null ? "No payment request has been made." : `You have a payment request for bill ${request.bill_id} of ${floatRepr(request.amount_due)} USD.`;
  },
};

const WRITE: Record<string, PhoneTool> = {
  set_network_mode_preference(p, a) {
    const mode = a.mode;
    if (!NETWORK_MODES.includes(mode)) return `Failed to set network mode: '${mode}' is not a valid option. Please use one of: ${NETWORK_MODES.join(", ")}\nStatus Bar: ${p.statusBar()}`;
    p.device.network_mode_preference = mode;
    p.networkSearch();
    return p.withBar(`Preferred Network Mode set to: ${mode}`);
  },
  toggle_airplane_mode: (p) => p.withBar(`Airplane Mode is now ${onOff(p.toggleAirplane())}.`),
  reseat_sim_card(p) {
    p.device.sim_card_missing = false;
    p.networkSearch();
    return p.withBar("SIM card re-seated successfully.");
  },
  toggle_data: (p) => p.withBar(`Mobile Data is now ${onOff(p.toggle("data_enabled", true))}.`),
  toggle_roaming: (p) => p.withBar(`Data Roaming is now ${onOff(p.toggle("roaming_enabled", true))}.`),
  toggle_data_saver_mode: (p) => p.withBar(`Data Saver Mode is now ${onOff(p.toggle("data_saver_mode", false))}.`),
  set_apn_settings(p, a) {
    const settings = a.apn_settings;
    if (!settings || typeof settings !== "object" || Array.isArray(settings)) throw new TypeError("apn_settings must be an APNSettings or a dict");
    const allowed = Object.keys(defaultApn());
    const extra = Object.keys(settings).filter((k) => !allowed.includes(k));
    if (extra.length > 0) throw new Error(`1 validation error for APNSettings\n${extra[0]}\n  Extra inputs are not permitted`);
    const next = { ...defaultApn(), ...settings };
    if (!["internet", "broken"].includes(next.apn_name)) throw new Error(`1 validation error for APNSettings\napn_name\n  Input should be 'internet' or 'broken'`);
    p.device.active_apn_settings = next;
    p.networkSearch();
    return p.withBar(`APN settings set to: ${next.apn_name}`);
  },
  reset_apn_settings(p) {
    p.device.active_apn_settings.reset_at_reboot = true;
    p.networkSearch();
    return p.withBar("APN settings will reset at reboot.");
  },
  toggle_wifi(p) {
    const d = p.device;
    if (d.airplane_mode) return `Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ${p.statusBar()}`;
    d.wifi_enabled = !d.wifi_enabled;
    if (!d.wifi_enabled) Object.assign(d, { wifi_connected: false, wifi_ssid: null, wifi_signal_strength: "none" });
    return p.withBar(`Wi-Fi is now ${onOff(d.wifi_enabled)}.`);
  },
  toggle_wifi_calling: (p) => p.withBar(`Wi-Fi Calling is now ${onOff(p.toggle("wifi_calling_enabled", false))}.`),
  connect_vpn(p) {
    const connected = p.connectVpn();
    if (connected === null) return "VPN already connected.";
    return p.withBar(connected ? "VPN connected successfully." : "No VPN connection to connect.");
  },
  disconnect_vpn: (p) => p.withBar(p.disconnectVpn() ? "VPN disconnected successfully." : "No active VPN connection to disconnect."),
  grant_app_permission(p, a) {
    const app = p.device.app_statuses[a.app_name];
    const permission = String(a.permission).toLowerCase();
    let message: string;
    let ok = false;
    if (!app) message = `App '${a.app_name}' not found. Cannot grant permission.`;
    else if (!(permission in app.permissions)) message = `Permission '${permission}' not tracked for app '${a.app_name}', available permissions: [${Object.keys(app.permissions).map((k) => pythonStringRepr(k)).join(", ")}]`;
    else {
      app.permissions[permission] = true;
      ok = true;
      message = `Permission '${permission}' granted to app '${a.app_name}'.`;
    }
    return p.withBar(`${ok ? "Success. " : "Error. "}${message}`);
  },
  reboot_device(p) {
    const lines: string[] = [];
    if (p.device.active_apn_settings.reset_at_reboot) {
      lines.push("Resetting APN settings...");
      p.device.active_apn_settings = defaultApn();
    }
    lines.push("Restarting network services...");
    p.device.network_connection_status = "searching";
    p.networkSearch();
    return p.withBar(lines.join("\n"));
  },
  make_payment(p) {
    const request = p.surroundings.payment_request;
    if (request == null) return "You do not have a payment request.";
    request.paid = true;
    return `Payment of ${floatRepr(request.amount_due)} USD has been made for bill ${request.bill_id}.`;
  },
};

/** Methods tasks call by name to set a scenario up (never offered to the user model), and the assertions. */
const FUNCTIONS: Record<string, PhoneTool> = {
  simulate_network_search: (p) => void p.networkSearch(),
  set_user_info: (p, a) => void Object.assign(p.surroundings, { name: a.name, phone_number: a.phone_number }),
  set_user_location: (p, a) => void (p.surroundings.is_abroad = a.abroad),
  turn_airplane_mode_on(p) {
    if (!p.toggleAirplane()) p.toggleAirplane();
    return "Airplane Mode is now ON.";
  },
  turn_airplane_mode_off(p) {
    if (p.toggleAirplane()) p.toggleAirplane();
    return "Airplane Mode is now OFF.";
  },
  unseat_sim_card(p) {
    p.device.sim_card_missing = true;
    p.networkSearch();
    return "SIM card un-seated successfully.";
  },
  lock_sim_card(p, a) {
    if (a.mode === "pin") p.device.sim_card_status = "locked_pin";
    else if (a.mode === "puk") p.device.sim_card_status = "locked_puk";
    p.networkSearch();
    return `SIM card locked successfully in ${a.mode} mode.`;
  },
  turn_data_on(p) {
    p.device.data_enabled = true;
    return "Data connection restored.";
  },
  turn_data_off(p) {
    if (p.toggle("data_enabled", true)) p.toggle("data_enabled", true);
    return "Data connection broken.";
  },
  turn_roaming_on(p) {
    if (!p.toggle("roaming_enabled", true)) p.toggle("roaming_enabled", true);
    return "Data Roaming is now ON.";
  },
  turn_roaming_off(p) {
    if (p.toggle("roaming_enabled", true)) p.toggle("roaming_enabled", true);
    return "Data Roaming is now OFF.";
  },
  turn_data_saver_mode_on(p) {
    if (!p.toggle("data_saver_mode", false)) p.toggle("data_saver_mode", false);
    return "Data Saver Mode is now ON.";
  },
  turn_data_saver_mode_off(p) {
    if (p.toggle("data_saver_mode", false)) p.toggle("data_saver_mode", false);
    return "Data Saver Mode is now OFF.";
  },
  break_apn_settings(p) {
    p.device.active_apn_settings.apn_name = "broken";
    p.networkSearch();
    return "APN settings broken. Please call reset_apn_settings() to fix.";
  },
  break_apn_mms_setting(p) {
    p.device.active_apn_settings.mmsc_url = null;
    return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
  },
  set_wifi_calling(p, a) {
    if (p.device.wifi_calling_enabled !== a.enabled) p.toggle("wifi_calling_enabled", false);
    let message = `Wi-Fi Calling is now ${onOff(a.enabled)}.`;
    if (a.mms_over_wifi != null) {
      p.device.wifi_calling_mms_over_wifi = a.mms_over_wifi;
      message += `\nMMS over Wi-Fi is now ${onOff(a.mms_over_wifi)}.`;
    }
    return message;
  },
  break_vpn(p) {
    WRITE.connect_vpn!(p, {});
    p.device.vpn_details.server_performance = "poor";
    return "VPN connection broken.";
  },
  remove_app_permission(p, a) {
    const app = p.device.app_statuses[a.app_name];
    const permission = String(a.permission).toLowerCase();
    if (!app) return [false, `App '${a.app_name}' not found. Cannot remove permission.`];
    if (!(permission in app.permissions)) return [false, `Permission '${permission}' not tracked for app '${a.app_name}'.`];
    app.permissions[permission] = false;
    return [true, `Permission '${permission}' removed from app '${a.app_name}'.`];
  },
  assert_airplane_mode_status: (p, a) => p.device.airplane_mode === a.expected_status,
  assert_service_status: (p, a) => p.device.network_connection_status === a.expected_status,
  assert_mobile_data_status: (p, a) => p.mobileDataWorking() === a.expected_status,
  assert_mobile_roaming_status: (p, a) => p.device.roaming_enabled === a.expected_status,
  assert_mobile_data_saver_mode_status: (p, a) => p.device.data_saver_mode === a.expected_status,
  assert_internet_speed(p, a) {
    const [speed, desc] = p.speedTest();
    const value = speed ?? 0;
    return a.expected_desc == null ? value >= a.expected_speed : value >= a.expected_speed && desc.toLowerCase() === String(a.expected_desc).toLowerCase();
  },
  assert_internet_not_excellent: (p) => p.speedTest()[1].toLowerCase() !== "excellent",
  assert_can_send_mms: (p, a) => p.canSendMms() === a.expected_status,
  assert_mobile_data_usage_exceeded: (p, a) => p.surroundings.mobile_data_usage_exceeded === a.expected_status,
};

/** The user toolkit's state beyond its DB (the VPN defaults object every connection shares), kept beside the DB. */
const PHONE = Symbol("phone");
const phoneFor = (userDb: Obj): Phone => {
  const state = userDb as Obj & { [PHONE]?: Phone };
  return (state[PHONE] ??= new Phone(userDb, { server_address: "192.168.1.1", protocol: "OpenVPN", server_performance: "excellent" }));
};

const asTool = (name: string, kind: "read" | "write", run: PhoneTool): Tau2Tool => ({ name, kind, schema: TELECOM_USER_TOOL_SCHEMAS[name]!, run: (db, a) => run(phoneFor(db), a) });

export const telecomUserSide: Omit<Tau2UserSide, "sync"> = {
  dbPath: "data/tau2/domains/telecom/user_db.toml",
  className: "TelecomUserTools",
  loadDb: loadTelecomUserDb,
  // In τ²-bench's order (the class's method order), which is the order the user model is offered them in.
  tools: Object.keys(TELECOM_USER_TOOL_SCHEMAS).map((name) => (name in READ ? asTool(name, "read", READ[name]!) : asTool(name, "write", WRITE[name]!))),
  functions: Object.fromEntries(Object.entries({ ...READ, ...WRITE, ...FUNCTIONS }).map(([name, run]) => [name, (db: Obj, a: Obj) => run(phoneFor(db), a)])),
};
