// What each game's moves touch on the picture, and each move in words.
//
// picks(move): the picture's handles a move is built from, in the order a
// player clicks them: "card:Z5", "square:c1", "castle:2", "post:2:lord",
// "man:Q", "attr:1:domain", "field:Y4K", "supply:0:B". The pictures mark their
// elements with the same keys (data-pick="...", and data-square on Castle
// Danger's squares). A key no element carries is chosen from the list instead.
// words(move): the move said in words, for the line that shows the move chosen.
// Both read only the seat's own view (ctx.view) and the players' names.
(function () {
  "use strict";

  function cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
  function dashes(s) { return String(s).replace(/-/g, " "); }
  function list(words) {
    return words.length < 2 ? words.join("") : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  }

  // ---- King of Danger -------------------------------------------------------
  var KOD_SUITS = { W: "Walls", C: "Cannons", Z: "Wizards" };
  var KOD_KINGS = { KD: "the King of Danger", KW: "the King of Walls", KC: "the King of Cannons",
                    KZ: "the King of Wizards" };
  function kodCard(c) { return KOD_KINGS[c] || "the " + c.slice(1) + " of " + KOD_SUITS[c.charAt(0)]; }
  var kingOfDanger = {
    picks: function (m) { return m.type === "play" ? ["card:" + m.card].concat(m.suit ? ["suit:" + m.suit] : []) : []; },
    words: function (m) {
      if (m.type !== "play") { return null; }
      return "play " + kodCard(m.card) + (m.suit ? ", naming " + m.suit + " as the trick's suit" : "");
    }
  };

  // ---- Castle Danger --------------------------------------------------------
  var CD_PIECES = { K: "King", Z: "Wizard", B: "Builder", C: "Cannon" };
  function cdPiece(ctx, sq) {
    var p = ctx.view.pieces && ctx.view.pieces[sq];
    if (!p) { return "the piece"; }
    return (p.owner === ctx.seat ? "your " : "the other side's ") + (CD_PIECES[p.kind] || "hidden piece");
  }
  var castleDanger = {
    picks: function (m, ctx) {
      switch (m.type) {
        case "add": case "smuggle": return ["supply:" + ctx.seat + ":" + m.piece];
        case "move": return ["square:" + m.from, "square:" + m.to];
        case "fire": return ["square:" + m.from, "square:" + m.at];
        case "build": case "demolish": case "reveal": return ["square:" + m.at];
        default: return [];
      }
    },
    words: function (m, ctx) {
      var pending = ctx.view.pending;
      switch (m.type) {
        case "add": return "bring a " + CD_PIECES[m.piece] + " onto the board at your portal";
        case "smuggle": return "smuggle in a " + CD_PIECES[m.piece] + ", hidden";
        case "move": return "move " + cdPiece(ctx, m.from) + " from " + m.from + " to " + m.to;
        case "fire": return "fire " + cdPiece(ctx, m.from) + " on " + m.from + " at " + m.at;
        case "build": return "build a wall on " + m.at;
        case "demolish": return "demolish the wall on " + m.at;
        case "reveal":
          var own = ctx.view.pieces && ctx.view.pieces[m.at] && ctx.view.pieces[m.at].owner === ctx.seat;
          return "reveal " + (own ? "your" : "the other side's") + " hidden piece on " + m.at;
        case "end": return "end your turn";
        case "offer-draw": return "offer a draw";
        case "take-back": return "ask to take back your last turn";
        case "accept": case "decline":
          return m.type + " the " + (pending && pending.kind === "draw" ? "offer of a draw" : "request to take back a turn");
        default: return null;
      }
    }
  };

  // ---- King of the Castle ---------------------------------------------------
  var KOTC_POSTS = { king: "the King", lord: "the Lord", seneschal: "the Seneschal", master: "the Master at Arms" };
  function kotcMan(target, castle) {
    if (KOTC_POSTS[target]) { return KOTC_POSTS[target] + (target !== "king" && castle ? " of castle " + castle : ""); }
    return target;  // a man named by his letter
  }
  function kotcTarget(target, castle) {
    if (target === "king") { return "post:king"; }
    if (KOTC_POSTS[target] && castle) { return "post:" + castle + ":" + target; }
    return "man:" + target;
  }
  var kingOfTheCastle = {
    picks: function (m) {
      switch (m.type) {
        case "play":
          var keys = ["card:" + m.card];
          if (m.castle) { keys.push("castle:" + m.castle); }
          (m.targets || []).forEach(function (t) { keys.push(kotcTarget(t, m.castle)); });
          if (m.attribute) { keys.push("attr:" + m.castle + ":" + m.attribute); }
          if (m.take) { keys.push("discarded:" + m.take); }
          if (m.seat !== undefined) { keys.push("seat:" + m.seat); }
          return keys;
        case "react": return ["card:" + m.card].concat(m.save ? [/^[A-Z]$/.test(m.save) ? "man:" + m.save : "level:" + m.save] : []);
        case "discard": return m.cards.map(function (c) { return "card:" + c; });
        case "choose": return m.squires.map(function (s) { return "squire:" + s; });
        default: return [];
      }
    },
    unordered: function (m) { return m.type === "discard" || m.type === "choose"; },
    words: function (m, ctx) {
      switch (m.type) {
        case "play":
          var w = "play " + dashes(m.card);
          if (m.castle) { w += " on castle " + m.castle; }
          if (m.targets) { w += ", against " + list(m.targets.map(function (t) { return kotcMan(t, m.castle); })); }
          if (m.attribute) { w += ", its " + m.attribute; }
          if (m.take) { w += ", taking " + dashes(m.take) + " from the discard pile"; }
          if (m.seat !== undefined) { w += ", against " + (ctx.names[m.seat] || "seat " + m.seat); }
          return w;
        case "pass": return "pass";
        case "discard": return "discard " + list(m.cards.map(dashes));
        case "react": return "answer with " + dashes(m.card) + (m.save ? ", saving " + dashes(m.save) : "");
        case "choose": return "back the squires " + list(m.squires);
        case "standing":
          return m.answer === "pass" ? "from now on, pass whenever asked to answer a card"
                                     : "from now on, be asked whenever a card may be answered";
        default: return null;
      }
    }
  };

  // ---- King's Keys ----------------------------------------------------------
  var KK_COLOURS = { R: "red", G: "green", B: "blue", Y: "yellow" };
  var KK_ITEMS = { A: "axes", S: "shields", C: "coins", K: "keys" };
  function kkCard(c) {
    if (c.charAt(1) === "*") { return "the " + KK_COLOURS[c.charAt(0)] + " Kingdom card"; }
    if (c.charAt(0) === "*") { return "the Joker of " + KK_ITEMS[c.charAt(1)]; }
    return "the " + KK_COLOURS[c.charAt(0)] + " " + c.charAt(1) + " of " + KK_ITEMS[c.charAt(2)];
  }
  var kingsKeys = {
    picks: function (m) {
      if (m.type === "play") { return ["card:" + m.card].concat(m.take ? ["field:" + m.take] : []); }
      if (m.type === "choose") { return ["field:" + m.take]; }
      return [];
    },
    words: function (m, ctx) {
      if (m.type === "play") { return "play " + kkCard(m.card) + (m.take ? ", taking " + kkCard(m.take) : ""); }
      if (m.type === "choose") {
        var drawn = ctx.view.drawn;
        return (drawn ? "let " + kkCard(String(drawn)) + " from the pile take " : "take ") + kkCard(m.take);
      }
      return null;
    }
  };

  var GAMES = { "king-of-danger": kingOfDanger, "castle-danger": castleDanger,
                "king-of-the-castle": kingOfTheCastle, "kings-keys": kingsKeys };
  var NONE = { picks: function () { return []; }, words: function () { return null; } };

  function game(name) { return GAMES[name] || NONE; }
  window.RefereeMoves = {
    picks: function (name, move, ctx) { return game(name).picks(move, ctx); },
    // Keys that may be clicked in any order (cards to discard, squires to back).
    unordered: function (name, move) { var g = game(name); return g.unordered ? g.unordered(move) : false; },
    words: function (name, move, ctx) {
      if (move.type === "resign") { return "resign: the game ends and you lose"; }
      var w = game(name).words(move, ctx);
      return cap(w || move.type);
    }
  };
})();
