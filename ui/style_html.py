"""The app's CSS (one place), injected once per run by ``app.py``: one ``<style>`` block for the classes the
builders write (``kg-sent`` for a context sentence, ``kg-pinned`` for the one a citation marker pinned, ...).

>>> CSS.strip().startswith("<style>") and CSS.strip().endswith("</style>")
True
>>> all(f".{name}" in CSS for name in ("kg-sent", "kg-pinned", "kg-sid", "kg-table"))
True
"""

from __future__ import annotations

CSS = """
<style>
.kg-sent { border: 1px solid #e4e7eb; border-left: 4px solid #9fb3c8; border-radius: 6px;
           padding: 6px 10px; margin: 0 0 8px 0; background: #ffffff; }
.kg-sent.kg-focus { border-left-color: #9C27B0; background: #fbf5fd; }
.kg-sent.kg-pinned { border-left-color: #f0b400; background: #fff8db; box-shadow: 0 0 0 2px #f0b400; }
.kg-head { font-size: 0.78rem; color: #52606d; margin-bottom: 2px; display: flex; gap: 6px;
           flex-wrap: wrap; align-items: center; }
.kg-num { font-weight: 700; color: #243b53; }
.kg-sid { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #eef2f6;
          border-radius: 4px; padding: 0 5px; color: #243b53 !important; text-decoration: none; }
a.kg-sid:hover { background: #d9e2ec; }
.kg-stat { color: #7b8794; }
.kg-both { background: #e3f9e5; color: #0e5814; border-radius: 8px; padding: 0 6px; }
.kg-only { background: #fff3c4; color: #8d2b0b; border-radius: 8px; padding: 0 6px; }
.kg-text { line-height: 1.5; }
.kg-resolved { font-size: 0.8rem; color: #7b8794; margin-top: 2px; }
.kg-aligned { font-size: 0.78rem; color: #486581; margin-top: 2px; }
.kg-signals { font-size: 0.78rem; color: #486581; margin-top: 2px; }
.kg-signals .kg-sid { font-size: 0.72rem; }
mark.kg-m { background: #fff3b0; padding: 0 1px; border-radius: 3px; }
mark.kg-sel { background: #e1bee7; padding: 0 1px; border-radius: 3px; outline: 1px solid #9C27B0; }
mark.kg-span { background: #c8e6c9; padding: 0 1px; border-radius: 3px; outline: 1px solid #2e7d32; }
.kg-verdict { margin: 2px 0; }
.kg-claim { margin: 6px 0 10px 0; }
.kg-claim-head { font-size: 0.9rem; color: #243b53; }
.kg-evidence { margin: 4px 0; padding: 4px 10px; border-left: 3px solid #bcccdc; color: #243b53; }
.kg-facts { margin: 0 0 0 18px; font-size: 0.85rem; color: #486581; }
.kg-alternatives { margin: 0 0 0 18px; font-size: 0.9rem; }
.kg-v-yes { background: #e3f9e5; color: #0e5814; border-color: #a3d9a5; }
.kg-v-no { background: #ffe3e3; color: #8a1c1c; border-color: #f5a3a3; }
.kg-v-unsure { background: #fff3c4; color: #8d2b0b; border-color: #f0c869; }
.kg-answer { font-size: 1.05rem; line-height: 1.6; background: #f0f7ff; border: 1px solid #bcdcff;
             border-radius: 8px; padding: 10px 14px; }
.kg-answer p { margin: 0 0 6px 0; }
a.kg-cite { font-size: 0.8rem; font-weight: 700; text-decoration: none; margin-left: 2px;
            color: #1c5d99 !important; vertical-align: super; }
.kg-empty { color: #7b8794; font-style: italic; }
.kg-badge { background: #f0f4f8; color: #334e68; border: 1px solid #d9e2ec; border-radius: 8px; padding: 0 6px;
            font-size: 0.85em; }
.kg-muted { color: #7b8794; }
.kg-caption { color: #7b8794; font-size: 0.8rem; }
.kg-treemap { position: relative; width: 100%; max-height: 460px; margin: 4px 0 12px 0; font-size: 0.75rem; }
.kg-tm-box { position: absolute; box-sizing: border-box; overflow: hidden; border: 1px solid #ffffff;
             color: #243b53; }
.kg-tm-top { border-radius: 4px; }
.kg-tm-sub { background: rgba(255, 255, 255, 0.45); border-color: rgba(36, 59, 83, 0.18); }
.kg-tm-box:hover { outline: 2px solid #486581; z-index: 1; }
.kg-tm-title { padding: 1px 4px; line-height: 16px; height: 16px; white-space: nowrap; overflow: hidden;
               text-overflow: ellipsis; }
.kg-tm-top > .kg-tm-title { font-weight: 600; }
a.kg-tm-box, a.kg-tm-title { display: block; color: #243b53 !important; text-decoration: none; }
a.kg-tm-title:hover, a.kg-tm-box:hover > .kg-tm-title { text-decoration: underline; }
.kg-tm-kids { position: absolute; top: 18px; left: 2px; right: 2px; bottom: 2px; }
.kg-scroll { max-height: 620px; overflow-y: auto; padding-right: 4px; }
.kg-doc { background: #e0e8f9; color: #19216c; border-radius: 8px; padding: 0 6px; font-weight: 600; }
.kg-where { background: #f0f4f8; color: #334e68; border-radius: 8px; padding: 0 6px; }
.kg-cited { background: #dcedc8; color: #33691e; border-radius: 8px; padding: 0 6px; }
.kg-sent.kg-cited-sent { border-left-color: #7cb342; }
.kg-preparing { font-weight: 600; }
.kg-dochead { font-weight: 700; color: #19216c; border-bottom: 2px solid #bed0f7; margin: 10px 0 6px 0;
              padding-bottom: 2px; }
.kg-passage { line-height: 1.6; background: #fbfcfd; border: 1px solid #d9e2ec; border-radius: 8px;
              padding: 10px 14px; white-space: pre-wrap; }
.kg-passage.kg-context { color: #52606d; font-size: 0.92rem; }
mark.kg-here { background: #ffe066; padding: 1px 2px; border-radius: 3px; outline: 1px solid #f0b400; }
.kg-role { background: #fff3c4; color: #8d2b0b; border-radius: 8px; padding: 0 6px; }
.kg-cites { background: #ede7f6; color: #4527a0; border-radius: 8px; padding: 0 6px; }
.kg-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.8rem; color: #334e68; margin: 4px 0 8px 0; }
.kg-key { border-left: 14px solid; padding-left: 5px; line-height: 1.1; }
table.kg-table { border-collapse: collapse; margin: 6px 0 10px 0; font-size: 0.92rem; }
table.kg-table td { border: 1px solid #d9e2ec; padding: 3px 10px; }
table.kg-table tr:first-child td { font-weight: 600; background: #f0f4f8; }
table.kg-table tr.kg-here td { background: #fff3b0; }
ul.kg-refs { margin: 0 0 8px 0; padding-left: 1.2rem; }
table.kg-stage-matrix { border-collapse: collapse; margin: 4px 0 10px 0; font-size: 0.9rem; }
table.kg-stage-matrix th, table.kg-stage-matrix td { border: 1px solid #d9e2ec; padding: 3px 10px; text-align: center; }
table.kg-stage-matrix tbody th { text-align: left; font-weight: 600; background: #f0f4f8; }
table.kg-stage-matrix th.kg-disputed { background: #ffe3e3; color: #8a1c1c; }
.kg-qa { padding-left: 1.4rem; margin: 4px 0 8px 0; }
.kg-qa li { margin-bottom: 6px; }
.kg-qa .kg-sid { font-size: 0.72rem; }
.kg-qa-answer { font-weight: 700; color: #102a43; }
.kg-qa-why { font-size: 0.78rem; color: #486581; margin-top: 1px; }
.kg-qa-said { font-size: 0.82rem; color: #243b53; margin-top: 1px; font-style: italic; }
.kg-qa-frame { margin: 10px 0 2px 0; }
.kg-reflabel { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: #52606d; }
</style>
"""
